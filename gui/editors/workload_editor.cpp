#include "editors/workload_editor.h"

#include "charts/trace_charts.h"
#include "document/scenario_document.h"
#include "editors/job_mix_dialog.h"
#include "models/job_mix.h"
#include "models/job_table_model.h"
#include "models/trace_summary.h"
#include "results/palette.h"

#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <set>

#include <cmath>

namespace orrery::gui {

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
    m_demand = smallBarChart();
    m_arrivals = smallBarChart();
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
    if (w.hyperband)
        text += tr(" Plus %1 generated Hyperband apps at %2/h.").arg(w.hyperband->apps).arg(w.hyperband->appsPerHour);
    m_summary->setText(text);
    fillTraceCharts(m_demand, m_arrivals, s);
}

} // namespace orrery::gui
