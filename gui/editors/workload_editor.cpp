#include "editors/workload_editor.h"

#include "document/scenario_document.h"
#include "editors/job_mix_dialog.h"
#include "models/job_mix.h"
#include "models/job_table_model.h"
#include "models/trace_summary.h"
#include "results/palette.h"

#include <QBarCategoryAxis>

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>
#include <QValueAxis>

#include <set>

#include <cmath>

namespace orrery::gui {

static QChartView* smallChart()
{
    auto* view = new QChartView(new QChart);
    view->setRenderHint(QPainter::Antialiasing);
    view->chart()->legend()->hide();
    view->chart()->setMargins(QMargins(2, 2, 2, 2));
    view->setMinimumHeight(150);
    return view;
}

WorkloadEditor::WorkloadEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_model(new JobTableModel(document, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Add job mix..."), this, &WorkloadEditor::addMixFromDialog);
    bar->addAction(tr("Remove selected"), this, &WorkloadEditor::removeSelected);
    layout->addWidget(bar);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_jobs = new QTableView;
    m_jobs->setModel(m_model);
    m_jobs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_jobs->verticalHeader()->hide();
    m_jobs->horizontalHeader()->setStretchLastSection(true);
    split->addWidget(m_jobs);
    auto* summary = new QWidget;
    auto* sl = new QVBoxLayout(summary);
    sl->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    sl->addWidget(m_summary);
    auto* charts = new QHBoxLayout;
    m_demand = smallChart();
    m_arrivals = smallChart();
    charts->addWidget(m_demand);
    charts->addWidget(m_arrivals);
    sl->addLayout(charts, 1);
    split->addWidget(summary);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);
    connect(document, &ScenarioDocument::workloadChanged, this, &WorkloadEditor::updateSummary);
    connect(document, &ScenarioDocument::documentReset, this, &WorkloadEditor::updateSummary);
    updateSummary();
}

void WorkloadEditor::addMixFromDialog()
{
    const workload::ModelLibrary library = m_document->scenario().models();
    JobMixDialog dialog(library, this);
    if (dialog.exec() == QDialog::Accepted)
        addMix(dialog.mix());
}

void WorkloadEditor::addMix(const JobMix& mix)
{
    auto jobs = m_document->scenario().workload.jobs;
    auto models = m_document->scenario().workload.customModels;
    if (mix.customModel) {
        std::erase_if(models, [&](const workload::ModelSpec& m) { return m.name == mix.customModel->name; });
        models.push_back(*mix.customModel);
    }
    auto added = generateJobs(mix, jobs);
    const QString text = tr("Add %1 %2 jobs")
                             .arg(added.size())
                             .arg(QString::fromStdString(added.empty() ? std::string() : added.front().model));
    jobs.insert(jobs.end(), added.begin(), added.end());
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const workload::Job& a, const workload::Job& b) { return a.arrivalS < b.arrivalS; });
    m_document->setJobsAndModels(std::move(jobs), std::move(models), text);
}

void WorkloadEditor::removeSelected()
{
    std::set<int> rows;
    for (const QModelIndex& i : m_jobs->selectionModel()->selectedRows())
        rows.insert(i.row());
    if (rows.empty())
        return;
    std::vector<workload::Job> jobs;
    const auto& old = m_document->scenario().workload.jobs;
    for (std::size_t i = 0; i < old.size(); ++i)
        if (!rows.count(static_cast<int>(i)))
            jobs.push_back(old[i]);
    m_document->setJobs(std::move(jobs), tr("Remove %1 jobs").arg(rows.size()));
}

static void fillBars(QChartView* view, const QString& title, const QStringList& labels, const QList<qreal>& values,
                     const QString& yTitle, const QColor& colour)
{
    QChart* chart = view->chart();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    chart->setTitle(title);
    auto* set = new QBarSet(yTitle);
    set->append(values);
    set->setColor(colour);
    set->setBorderColor(colour.darker(120));
    auto* series = new QBarSeries;
    series->append(set);
    series->setBarWidth(0.9);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(labels);
    QFont small = x->labelsFont();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8)); // the charts are narrow: "..." otherwise
    x->setLabelsFont(small);
    auto* y = new QValueAxis;
    qreal max = 1;
    for (qreal v : values)
        max = std::max(max, v);
    // Whole-number ticks (counts of jobs): 1, 2 or 5 x 10^k apart, about five of them.
    double step = 1;
    while (max / step > 5)
        step *= (QString::number(step).startsWith(QLatin1Char('2')) ? 2.5 : 2);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(step);
    y->setRange(0, std::ceil(max * 1.1 / step) * step);
    y->setLabelFormat(QStringLiteral("%d"));
    y->setTitleText(yTitle);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void WorkloadEditor::updateSummary()
{
    const auto& w = m_document->scenario().workload;
    const TraceSummary s = TraceSummary::of(w.jobs);
    QString text = tr("<b>%1 jobs</b> from %2 users, %3 models (%4 serverless: Orrery chooses their GPUs); arrivals "
                      "from %5 to %6.")
                       .arg(s.jobs)
                       .arg(s.users)
                       .arg(s.models)
                       .arg(s.serverless)
                       .arg(formatDuration(s.firstArrivalS), formatDuration(s.lastArrivalS));
    if (w.trace)
        text += tr(" Plus the trace <i>%1</i> (%2), imported when the scenario runs.")
                    .arg(QString::fromStdString(w.trace->path), QString::fromStdString(w.trace->format));
    if (w.generator)
        text += tr(" Plus %1 generated jobs at %2/h.").arg(w.generator->jobs).arg(w.generator->ratePerHour);
    m_summary->setText(text);
    QStringList labels;
    QList<qreal> counts;
    for (std::size_t i = 0; i < s.demandLabels.size(); ++i)
        if (s.demandCounts[i] > 0 || i < 4) {
            labels << s.demandLabels[i];
            counts << s.demandCounts[i];
        }
    fillBars(m_demand, tr("GPU demand"), labels, counts, tr("jobs"), colourForIndex(0));
    QStringList binLabels;
    QList<qreal> arrivals;
    const int step = std::max<int>(1, static_cast<int>(s.arrivalsPerBin.size()) / 4);
    for (std::size_t i = 0; i < s.arrivalsPerBin.size(); ++i) {
        binLabels << (i % static_cast<std::size_t>(step) == 0 ? formatDuration(static_cast<double>(i) * s.arrivalBinS)
                                                              : QString(i, QChar(0x200b)));
        arrivals << s.arrivalsPerBin[i];
    }
    fillBars(m_arrivals, tr("Arrivals per %1").arg(formatDuration(s.arrivalBinS)), binLabels, arrivals, tr("jobs"),
             colourForIndex(1));
}

} // namespace orrery::gui
