// The PDF report (issue #19): laid out from the runs' data at page size, every text box holding its text, no two
// texts overlapping, legends with swatches, round axis labels, and the written pages looked at as images.
#include "export/pdf_report.h"
#include "export/report_plot.h"
#include "results/palette.h"

#include "io/scenario.h"
#include "metrics/metrics.h"
#include "sched/run_policies.h"
#include "sim/prepare_scenario.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPdfWriter>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

using namespace orrery;
using namespace orrery::gui;

namespace {

std::vector<const ReportText*> textsOf(const ReportPage& page)
{
    std::vector<const ReportText*> out;
    for (const auto& item : page.items)
        if (const auto* t = std::get_if<ReportText>(&item))
            out.push_back(t);
    return out;
}

bool hasText(const ReportPage& page, const QString& text)
{
    for (const ReportText* t : textsOf(page))
        if (t->text == text)
            return true;
    return false;
}

bool hasSwatch(const ReportPage& page, const QColor& colour)
{
    for (const auto& item : page.items)
        if (const auto* b = std::get_if<ReportBox>(&item); b && b->fill == colour)
            return true;
    return false;
}

/** Pixels darker than near-white in `image` inside `rect`. */
int ink(const QImage& image, const QRect& rect)
{
    int n = 0;
    for (int y = std::max(0, rect.top()); y <= std::min(image.height() - 1, rect.bottom()); ++y)
        for (int x = std::max(0, rect.left()); x <= std::min(image.width() - 1, rect.right()); ++x)
            if (qGray(image.pixel(x, y)) < 235)
                ++n;
    return n;
}

} // namespace

class TestPdfReport : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::vector<RunEntry> m_runs;
    double m_usdPerHour = 0;

    ReportData data(int runs, const QString& title = QStringLiteral("Orrery report: default")) const
    {
        ReportData d;
        d.title = title;
        d.generated = QDateTime(QDate(2026, 11, 26), QTime(15, 0));
        d.scenarioLines << QStringLiteral("Cluster: 2 x 8 A100 + 6 x 4 RTX 2080 Ti (44 GPUs)")
                        << QStringLiteral("Workload: 60 inline jobs");
        d.clusterUsdPerHour = m_usdPerHour;
        for (int i = 0; i < runs; ++i) {
            RunEntry r = m_runs[static_cast<std::size_t>(i) % m_runs.size()];
            if (i >= static_cast<int>(m_runs.size()))
                r.name = QStringLiteral("%1 with a long descriptive name #%2").arg(r.name).arg(i);
            d.runs.push_back(r);
        }
        d.focus = m_runs.front();
        return d;
    }

    /** Every text of every page holds its text inside the page, and no two texts of a page overlap. */
    static void checkLayout(const std::vector<ReportPage>& pages, const QPaintDevice& device, QSizeF pageSize)
    {
        const QRectF bounds(QPointF(0, 0), pageSize);
        for (const ReportPage& page : pages) {
            const auto texts = textsOf(page);
            QVERIFY2(!texts.empty(), qPrintable(page.name));
            for (const ReportText* t : texts) {
                const QString where = QStringLiteral("page '%1', text '%2'").arg(page.name, t->text.left(60));
                QVERIFY2(bounds.adjusted(-0.5, -0.5, 0.5, 0.5).contains(t->rect), qPrintable(where));
                const QFontMetricsF fm(t->font, &device);
                if (t->wrap) {
                    const QRectF need =
                        fm.boundingRect(QRectF(0, 0, t->rect.width(), 1e6), Qt::AlignLeft | Qt::TextWordWrap, t->text);
                    QVERIFY2(need.height() <= t->rect.height() + 0.5 && need.width() <= t->rect.width() + 0.5,
                             qPrintable(where + QStringLiteral(" is cut")));
                } else {
                    QVERIFY2(fm.horizontalAdvance(t->text) <= t->rect.width() + 0.5,
                             qPrintable(where + QStringLiteral(" is cut: %1 > %2")
                                                    .arg(fm.horizontalAdvance(t->text))
                                                    .arg(t->rect.width())));
                    QVERIFY2(fm.height() <= t->rect.height() + 0.5, qPrintable(where + QStringLiteral(" is too low")));
                }
                QVERIFY2(!t->text.contains(QRegularExpression(QStringLiteral("\\d[eE][+-]?\\d"))),
                         qPrintable(where + QStringLiteral(" uses scientific notation")));
            }
            for (std::size_t i = 0; i < texts.size(); ++i)
                for (std::size_t j = i + 1; j < texts.size(); ++j) {
                    const QRectF overlap = texts[i]->rect.intersected(texts[j]->rect);
                    QVERIFY2(overlap.isEmpty() || overlap.width() * overlap.height() < 1.0,
                             qPrintable(QStringLiteral("page '%1': '%2' overlaps '%3'")
                                            .arg(page.name, texts[i]->text.left(40), texts[j]->text.left(40))));
                }
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const io::Scenario scenario = io::defaultScenario();
        const sim::PreparedWorkload workload = sim::prepareScenario(scenario);
        auto cluster = std::make_shared<const hardware::Cluster>(workload.cluster());
        m_usdPerHour = cluster->priceUsdPerHour();
        const auto results = sched::runPolicies(workload, {"fifo", "sjf", "tiresias"}, scenario.options.seed);
        for (std::size_t i = 0; i < results.size(); ++i) {
            RunEntry e;
            e.id = static_cast<int>(i) + 1;
            e.name = QStringLiteral("%1 #%2").arg(QString::fromStdString(results[i].policy)).arg(i + 1);
            e.result = std::make_shared<const sim::RunResult>(results[i]);
            e.cluster = cluster;
            m_runs.push_back(e);
        }
    }

    void axisTicksAreRound()
    {
        // Durations: whole hours over a 10-hour run, labelled without seconds or exponents.
        const AxisTicks hours = axisTicks(PlotAxis::Duration, 0, 36000, 6);
        QCOMPARE(hours.values.front(), 0.0);
        QVERIFY(hours.values.back() >= 36000);
        for (double v : hours.values)
            QCOMPARE(std::fmod(v, 3600.0), 0.0);
        QCOMPARE(hours.labels.at(1), QStringLiteral("2 h"));
        // Days over a month.
        const AxisTicks days = axisTicks(PlotAxis::Duration, 0, 30 * 86400.0, 6);
        QVERIFY(days.labels.back().endsWith(QStringLiteral(" d")));
        // Numbers: 1-2-5 steps, thousands grouped, small steps with just enough decimals, never "1e+06".
        const AxisTicks cost = axisTicks(PlotAxis::Number, 0, 2.4e6, 5);
        QCOMPARE(cost.labels.at(1), QStringLiteral("500,000"));
        const AxisTicks fraction = axisTicks(PlotAxis::Number, 0, 1, 5);
        QCOMPARE(fraction.labels, QStringList({"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
        // The on-screen charts' axes get the same round ticks: 7.3 hours shows as 0 to 8 in steps of 2.
        QValueAxis axis;
        applyRoundTicks(&axis, 0, 7.3);
        QCOMPARE(axis.min(), 0.0);
        QCOMPARE(axis.max(), 8.0);
        QCOMPARE(axis.tickType(), QValueAxis::TicksDynamic);
        QCOMPARE(axis.tickInterval(), 2.0);
        QCOMPARE(axis.labelFormat(), QStringLiteral("%.0f"));
    }

    void everyTextFitsAndNoneOverlaps_data()
    {
        QTest::addColumn<int>("runs");
        QTest::addColumn<QString>("title");
        QTest::newRow("one run") << 1 << QStringLiteral("Orrery report: default");
        QTest::newRow("three runs") << 3 << QStringLiteral("Orrery report: default");
        // Eight runs with long names do not fit across the page: the table is split into blocks of runs.
        QTest::newRow("eight long-named runs, long title")
            << 8
            << QStringLiteral("Orrery report: a scenario whose name is much longer than one line of an A4 page can "
                              "hold, as planners name their what-ifs after every knob they turned");
    }
    void everyTextFitsAndNoneOverlaps()
    {
        QFETCH(int, runs);
        QFETCH(QString, title);
        QPdfWriter pdf(m_dir.filePath(QStringLiteral("metrics.pdf")));
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
        pdf.setResolution(150);
        const QSizeF size = pdf.pageLayout().paintRectPixels(pdf.resolution()).size();
        const ReportData d = data(runs, title);
        const auto pages = layoutReport(d, pdf, size);
        QVERIFY(pages.size() >= 3);
        QCOMPARE(pages.front().name, QStringLiteral("summary"));
        checkLayout(pages, pdf, size);

        // The whole title and every run name are there, each run with its colour beside its name.
        QVERIFY(hasText(pages.front(), title));
        std::vector<const ReportPage*> summary;
        for (const auto& p : pages)
            if (p.name == QStringLiteral("summary"))
                summary.push_back(&p);
        for (int i = 0; i < d.runs.size(); ++i) {
            const bool found = std::any_of(summary.begin(), summary.end(),
                                           [&](const ReportPage* p) { return hasText(*p, d.runs[i].name); });
            QVERIFY2(found, qPrintable(d.runs[i].name));
        }
        // The comparison page: a legend entry (swatch and full name) per run; the run page: utilisation legend
        // with swatches, the Gantt's bars and its bands named.
        const auto comparison =
            std::find_if(pages.begin(), pages.end(), [](const ReportPage& p) { return p.name == "comparison"; });
        QVERIFY(comparison != pages.end());
        for (int i = 0; i < d.runs.size(); ++i) {
            QVERIFY2(hasText(*comparison, d.runs[i].name), qPrintable(d.runs[i].name));
            QVERIFY(hasSwatch(*comparison, colourForIndex(i)));
        }
        const ReportPage& run = pages.back();
        QCOMPARE(run.name, QStringLiteral("run"));
        QVERIFY(hasText(run, QStringLiteral("all GPUs")));
        // The utilisation title carries the run's mean, as core computes it (the first version printed 0.0%).
        const QString mean = formatPercent(metrics::summarize(*d.focus.result).utilization);
        QVERIFY(mean != QStringLiteral("0.0%"));
        QVERIFY(hasText(run, QStringLiteral("GPU utilisation over time: %1 (mean %2)").arg(d.focus.name, mean)));
        QVERIFY(hasSwatch(run, QColor(30, 30, 30)));
        const auto image = std::find_if(run.items.begin(), run.items.end(),
                                        [](const ReportItem& i) { return std::holds_alternative<ReportImage>(i); });
        QVERIFY(image != run.items.end());
        const QImage& bars = std::get<ReportImage>(*image).image;
        QVERIFY2(ink(bars, bars.rect()) > bars.width() * bars.height() / 10, "the Gantt has almost no bars");
        const auto runTexts = textsOf(run);
        QVERIFY(std::any_of(runTexts.begin(), runTexts.end(), [](const ReportText* t) {
            return t->text.startsWith(QStringLiteral("Rows, top to bottom"));
        }));
        // Page numbers.
        for (std::size_t i = 0; i < pages.size(); ++i)
            QVERIFY(hasText(pages[i], QStringLiteral("Page %1 of %2").arg(i + 1).arg(pages.size())));
    }

    /** The written PDF, rasterised with poppler's pdftoppm: as many pages as laid out, each with content and
     * nothing drawn into the 15 mm margins. */
    void writtenPagesLookRight()
    {
        const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
        if (pdftoppm.isEmpty())
            QSKIP("pdftoppm (Debian package poppler-utils, installed by scripts/setup) is not on PATH");
        const QString path = m_dir.filePath(QStringLiteral("report.pdf"));
        QString error;
        const int pages = writePdfReport(data(3), path, &error);
        QVERIFY2(pages == 3, qPrintable(error));
        // To look at the pages yourself: ORRERY_REPORT_OUT=/tmp/report.pdf gui_test_pdf_report writtenPagesLookRight
        if (const QString keep = qEnvironmentVariable("ORRERY_REPORT_OUT"); !keep.isEmpty()) {
            QFile::remove(keep);
            QVERIFY(QFile::copy(path, keep));
        }
        const int dpi = 40;
        QProcess p;
        p.start(pdftoppm, {QStringLiteral("-r"), QString::number(dpi), QStringLiteral("-png"), path,
                           m_dir.filePath(QStringLiteral("page"))});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QStringList images =
            QDir(m_dir.path()).entryList({QStringLiteral("page-*.png")}, QDir::Files, QDir::Name);
        QCOMPARE(images.size(), pages);
        const int margin = static_cast<int>(15 / 25.4 * dpi) - 2;
        for (const QString& name : images) {
            const QImage page(m_dir.filePath(name));
            QVERIFY(!page.isNull());
            QVERIFY2(page.width() < page.height(), "not portrait");
            const QRect inside = page.rect().adjusted(margin, margin, -margin, -margin);
            QVERIFY2(ink(page, inside) > inside.width() * inside.height() / 100, qPrintable(name + " is blank"));
            const int outside = ink(page, page.rect()) - ink(page, inside);
            QVERIFY2(outside == 0,
                     qPrintable(QStringLiteral("%1: %2 pixels drawn in the margins").arg(name).arg(outside)));
        }
    }

    void unwritableFileIsReported()
    {
        QString error;
        QCOMPARE(writePdfReport(data(1), QStringLiteral("/nonexistent-dir/report.pdf"), &error), 0);
        QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir/report.pdf")), qPrintable(error));
    }
};

QTEST_MAIN(TestPdfReport)
#include "test_pdf_report.moc"
