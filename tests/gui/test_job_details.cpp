// The job details panel (issue #19, "The schedule explains itself"): a job's record, its allocations grouped from
// per-GPU intervals with their nodes and type mix, its events; finding a job by id.
#include "results/job_details.h"
#include "results/job_details_panel.h"
#include "results/palette.h"
#include "timeline/gantt_view.h"

#include "hardware/cluster.h"
#include "hardware/gpu_catalog.h"

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>

#include <algorithm>

using namespace orrery;
using namespace orrery::gui;

namespace {

/** 2 nodes of 4 A100 (GPUs 0-7), 1 node of 4 RTX 2080 Ti (GPUs 8-11). */
std::shared_ptr<const hardware::Cluster> cluster()
{
    const auto group = [](const char* name, const char* type, int nodes) {
        hardware::NodeGroup g;
        g.name = name;
        g.gpuType = type;
        g.count = nodes;
        g.gpusPerNode = 4;
        return g;
    };
    return std::make_shared<const hardware::Cluster>(
        std::vector<hardware::NodeGroup>{group("a100", "a100-40gb-sxm", 2), group("rtx", "rtx2080ti", 1)},
        hardware::Link{hardware::LinkKind::Ethernet, 25.0 / 8.0, 5.0}, hardware::GpuCatalog::builtin());
}

/** Job "b" runs on 4 A100s of node a100-0, is preempted, then runs on 2 A100s of a100-1 and 2 RTX. */
std::shared_ptr<const sim::RunResult> run()
{
    auto r = std::make_shared<sim::RunResult>();
    r->totalGpus = 12;
    r->jobs = {{"a", "gpt2-124m", "u1", 0, 0, 50, 1, "a100-40gb-sxm", 0, 50, 0, 40},
               {"b", "bert-large", "u2", 10, 100, 900, 4, "a100-40gb-sxm", 1, 2800, 0, 500}};
    r->jobs[1].demand = 4;
    r->intervals = {{0, 0, 0, 50}};
    for (int g = 0; g < 4; ++g)
        r->intervals.push_back({1, g, 100, 400});
    for (int g : {6, 7, 8, 9})
        r->intervals.push_back({1, g, 500, 900});
    r->jobEvents = {{60, 1, sim::JobEventKind::Reason, "first in FIFO order; waits for room: needs 4 x A100"},
                    {400, 1, sim::JobEventKind::Suspend, ""},
                    {500, 1, sim::JobEventKind::Resume, ""}};
    r->makespanS = 900;
    return r;
}

} // namespace

class TestJobDetails : public QObject
{
    Q_OBJECT
private slots:
    void allocationsFromIntervals()
    {
        const auto c = cluster();
        const JobDetails d = jobDetails(*run(), 1, c.get());
        QCOMPARE(d.index, 1);
        QCOMPARE(*d.waitS, 90.0);
        QCOMPARE(*d.jctS, 890.0);
        QCOMPARE(d.allocations.size(), std::size_t(2));
        QCOMPARE(d.allocations[0].gpus, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(d.allocations[0].nodes, QStringList({"a100-0"}));
        // Types by their display names ("4 x NVIDIA A100 40GB SXM4").
        QVERIFY2(d.allocations[0].gpuTypes.startsWith(QStringLiteral("4 x ")) &&
                     d.allocations[0].gpuTypes.contains(QStringLiteral("A100")) &&
                     !d.allocations[0].gpuTypes.contains(QStringLiteral(" + ")),
                 qPrintable(d.allocations[0].gpuTypes));
        QCOMPARE(d.allocations[1].startS, 500.0);
        QCOMPARE(d.allocations[1].nodes, QStringList({"a100-1", "rtx"})); // a one-node group's node has no suffix
        QVERIFY2(d.allocations[1].gpuTypes.startsWith(QStringLiteral("2 x ")) &&
                     d.allocations[1].gpuTypes.contains(QStringLiteral("A100")) &&
                     d.allocations[1].gpuTypes.contains(QStringLiteral(" + 2 x ")) &&
                     d.allocations[1].gpuTypes.contains(QStringLiteral("RTX 2080 Ti")),
                 qPrintable(d.allocations[1].gpuTypes));
        QCOMPARE(d.events.size(), std::size_t(3));
        // Without a cluster: GPU ids only.
        const JobDetails bare = jobDetails(*run(), 1, nullptr);
        QVERIFY(bare.allocations[0].nodes.isEmpty());
        QCOMPARE(bare.allocations[0].gpuTypes, QStringLiteral("4 GPUs"));
        // Out of range: nothing.
        QCOMPARE(jobDetails(*run(), 7, c.get()).index, -1);
    }

    /** Runs whose rates report samples per second (goodput runs: Sia, Pollux): each allocation's, and the policy's
     *  batch, in the details and in the Gantt's tooltip; runs without them show neither. */
    void goodputAndBatchOfAGoodputRun()
    {
        auto r = std::make_shared<sim::RunResult>(*run());
        // Job b: 120 samples/s over [100, 250], 200 over [250, 400]; 80 over its second allocation.
        r->rateSegments = {{1, 100, 250, 1.0, 120.0}, {1, 250, 400, 1.0, 200.0}, {1, 500, 900, 1.0, 80.0}};
        r->jobs[1].extras = {{"batch", "512"}};
        QCOMPARE(meanSamplesPerS(*r, 1, 100, 400), 160.0);
        QCOMPARE(meanSamplesPerS(*r, 0, 0, 50), 0.0);
        QCOMPARE(chosenBatch(*r, 1), QStringLiteral("512"));
        QVERIFY(chosenBatch(*r, 0).isEmpty());
        const auto c = cluster();
        const JobDetails d = jobDetails(*r, 1, c.get());
        QCOMPARE(d.allocations[0].samplesPerS, 160.0);
        QCOMPARE(d.allocations[1].samplesPerS, 80.0);
        const QString html = jobDetailsHtml(d);
        QVERIFY(html.contains(QStringLiteral("<th>Samples/s</th>")));
        QVERIFY(html.contains(QStringLiteral("<td>160.0</td>")));
        QVERIFY(!jobDetailsHtml(jobDetails(*run(), 1, c.get())).contains(QStringLiteral("Samples/s")));

        RunEntry entry;
        entry.name = QStringLiteral("sia");
        entry.result = r;
        entry.cluster = c;
        GanttView gantt;
        gantt.setRun(&entry);
        const auto first = std::find_if(r->intervals.begin(), r->intervals.end(),
                                        [](const sim::AllocationInterval& iv) { return iv.job == 1; });
        const QString tip = gantt.tooltipFor(static_cast<int>(first - r->intervals.begin()));
        QVERIFY2(tip.contains(QStringLiteral("160.0 samples/s")) && tip.contains(QStringLiteral("batch 512")),
                 qPrintable(tip));
        QVERIFY(!gantt.tooltipFor(0).contains(QStringLiteral("samples/s")));
    }

    void findByIdAndShow()
    {
        RunEntry e;
        e.name = QStringLiteral("fifo");
        e.result = run();
        e.cluster = cluster();
        QCOMPARE(findJobById(*e.result, QStringLiteral(" b ")), 1);
        QCOMPARE(findJobById(*e.result, QStringLiteral("B")), -1);

        JobDetailsPanel panel;
        panel.setRun(&e);
        QSignalSpy found(&panel, &JobDetailsPanel::jobFound);
        panel.findField()->setText(QStringLiteral("b"));
        QTest::keyClick(panel.findField(), Qt::Key_Return);
        QCOMPARE(found.count(), 1);
        QCOMPARE(found.front().front().toInt(), 1);
        QCOMPARE(panel.shownJob(), 1);
        const QString text = panel.browser()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("Allocations (2)")) && text.contains(QStringLiteral("a100-1, rtx")) &&
                     text.contains(QStringLiteral("suspend")) &&
                     text.contains(QStringLiteral("waits: first in FIFO order; waits for room: needs 4 x A100")),
                 qPrintable(text));

        panel.findField()->setText(QStringLiteral("nope"));
        QTest::keyClick(panel.findField(), Qt::Key_Return);
        QCOMPARE(found.count(), 1);
        const auto* message = panel.findChild<QLabel*>();
        QVERIFY(message && message->text().contains(QStringLiteral("No job \"nope\" in fifo")));
        QCOMPARE(panel.shownJob(), 1); // the last job found stays shown

        // Another run with a job of that id shows it there (one job compared across runs); one without it clears.
        RunEntry other = e;
        other.name = QStringLiteral("sjf");
        auto reordered = std::make_shared<sim::RunResult>(*e.result);
        std::swap(reordered->jobs[0], reordered->jobs[1]);
        other.result = reordered;
        panel.setRun(&other);
        QCOMPARE(panel.shownJob(), 0);
        auto without = std::make_shared<sim::RunResult>(*e.result);
        without->jobs[0].id = "x";
        without->jobs[1].id = "y";
        other.result = without;
        panel.setRun(&other);
        QCOMPARE(panel.shownJob(), -1);
        panel.findJob(QStringLiteral("y"));
        QCOMPARE(panel.shownJob(), 1);
    }

    /** The Gantt says what its colours mean, and writes job ids inside bars wide enough to hold them. */
    void ganttLegendAndBarLabels()
    {
        RunEntry e;
        e.name = QStringLiteral("fifo");
        e.result = run();
        e.cluster = cluster();
        GanttView gantt;
        gantt.resize(900, 300);
        gantt.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gantt));
        gantt.setRun(&e);
        auto legend = gantt.colourLegend();
        QCOMPARE(legend.size(), std::size_t(1));
        QVERIFY(!legend.front().colour.isValid());
        QSignalSpy changed(&gantt, &GanttView::coloursChanged);
        gantt.setColourBy(GanttView::ColourBy::User);
        QCOMPARE(changed.count(), 1);
        legend = gantt.colourLegend();
        QCOMPARE(legend.size(), std::size_t(2));
        QCOMPARE(legend[0].label, QStringLiteral("u2")); // 2,800 GPU-seconds before u1's 50
        QCOMPARE(legend[0].colour, colourForKey(QStringLiteral("u2")));
        legend = gantt.colourLegend(1);
        QCOMPARE(legend.size(), std::size_t(2));
        QCOMPARE(legend[1].label, QStringLiteral("and 1 more"));
        QVERIFY(!legend[1].colour.isValid());

        // Job b's first bar (GPU 0, 100-400 s of 900) is a third of the plot wide: its id is written in it.
        gantt.setColourBy(GanttView::ColourBy::Job);
        const QImage image = gantt.viewport()->grab().toImage();
        const QColor bar = colourForIndex(1);
        // The scanline image rounds colours by a unit or two.
        const auto near = [](const QColor& a, const QColor& b) {
            return std::abs(a.red() - b.red()) <= 3 && std::abs(a.green() - b.green()) <= 3 &&
                   std::abs(a.blue() - b.blue()) <= 3;
        };
        const int top = GanttView::kHeaderHeight + GanttView::kGroupHeaderHeight + 1;
        const double plot = image.width() - GanttView::kLabelWidth;
        const int x0 = GanttView::kLabelWidth + static_cast<int>(plot * 100 / 900) + 3;
        const int x1 = GanttView::kLabelWidth + static_cast<int>(plot * 400 / 900) - 3;
        int barPixels = 0, other = 0;
        for (int y = top + 1; y < top + GanttView::kRowHeight - 3; ++y)
            for (int x = x0; x < x1; ++x)
                (near(QColor(image.pixel(x, y)), bar) ? barPixels : other)++;
        QVERIFY2(barPixels > 100, "the bar is not where expected");
        QVERIFY2(other > 3, "no job id drawn in the bar");

        // A highlighted job's bars are marked in a strip at the right edge, rows out of view included: b ran on
        // GPUs 0-3 and then 6-9, eight rows, in order down the strip.
        QVERIFY(gantt.highlightMarkers().empty());
        gantt.setHighlightedJob(1);
        const auto marks = gantt.highlightMarkers();
        QVERIFY2(marks.size() >= 2 && marks.size() <= 8, qPrintable(QString::number(marks.size())));
        QVERIFY(std::is_sorted(marks.begin(), marks.end()));
        QVERIFY(marks.front() >= GanttView::kHeaderHeight && marks.back() < gantt.viewport()->height());
        const QImage marked = gantt.viewport()->grab().toImage();
        QVERIFY(near(QColor(marked.pixel(marked.width() - 4, marks.front())), QColor(230, 120, 0)));
    }
};

QTEST_MAIN(TestJobDetails)
#include "test_job_details.moc"
