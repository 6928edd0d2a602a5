#include "runs/run_manager_panel.h"

#include "document/scenario_document.h"
#include "io/error.h"
#include "io/run_info.h"
#include "io/scenario.h"
#include "results/palette.h"
#include "results/run_library.h"
#include "runs/placement_scores.h"
#include "runs/run_saver.h"
#include "runs/simulate_function.h"
#include "store/run_recorder.h"
#include "util/hash.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace orrery::gui {

namespace {

/** What a run's worker hands back: the result and, when it was stored while running, its store id. */
struct RecordedRun
{
    sim::RunResult result;
    qint64 storeId = -1;
    std::shared_ptr<const std::vector<double>> placementScores;
};

} // namespace

RunManagerPanel::RunManagerPanel(ScenarioDocument* document, RunLibrary* runs, JobRunner* runner,
                                 SimulateFunction simulate, QWidget* parent)
    : QWidget(parent), m_document(document), m_runs(runs), m_runner(runner), m_simulate(std::move(simulate))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(new QLabel(tr("<b>Policies</b> (the scenario's are checked):")));
    m_policies = new QListWidget;
    m_policies->setMaximumHeight(150);
    layout->addWidget(m_policies);
    auto* options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Seed")));
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1 << 30);
    options->addWidget(m_seed);
    options->addStretch();
    m_run = new QPushButton(tr("Run checked (F5)"));
    m_run->setDefault(true);
    options->addWidget(m_run);
    layout->addLayout(options);
    auto* area = new QScrollArea;
    area->setWidgetResizable(true);
    // Rows fit the panel's width (status texts wrap); it never scrolls sideways, e.g. when Cancel is clicked.
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_area = area;
    auto* rows = new QWidget;
    m_rowsLayout = new QVBoxLayout(rows);
    m_rowsLayout->setContentsMargins(0, 0, 0, 0);
    m_rowsLayout->addStretch();
    area->setWidget(rows);
    layout->addWidget(area, 1);

    connect(m_run, &QPushButton::clicked, this, [this] { runPolicies(checkedPolicies()); });
    connect(document, &ScenarioDocument::documentReset, this, &RunManagerPanel::populatePolicies);
    connect(runner, &JobRunner::taskProgress, this, &RunManagerPanel::onProgress);
    connect(runner, &JobRunner::taskCancelled, this,
            [this](JobRunner::TaskId id) { finishRow(id, tr("cancelled"), false); });
    connect(runner, &JobRunner::taskFinished, this, [this](JobRunner::TaskId id) { finishRow(id, tr("done"), true); });
    connect(runner, &JobRunner::taskFailed, this, [this](JobRunner::TaskId id, const QString& error) {
        finishRow(id, tr("failed: %1").arg(error), false);
        if (auto it = m_rows.find(id); it != m_rows.end())
            it->status->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    });
    populatePolicies();
}

void RunManagerPanel::populatePolicies()
{
    const QStringList checked = [&] {
        QStringList l;
        for (const auto& p : m_document->scenario().policies)
            l << QString::fromStdString(p);
        return l;
    }();
    m_policies->clear();
    for (const auto& name : registeredPolicies()) {
        auto* item = new QListWidgetItem(QString::fromStdString(name), m_policies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
    m_seed->setValue(static_cast<int>(m_document->scenario().options.seed));
}

QStringList RunManagerPanel::checkedPolicies() const
{
    QStringList out;
    for (int i = 0; i < m_policies->count(); ++i)
        if (m_policies->item(i)->checkState() == Qt::Checked)
            out << m_policies->item(i)->text();
    return out;
}

void RunManagerPanel::setCheckedPolicies(const QStringList& policies)
{
    for (int i = 0; i < m_policies->count(); ++i)
        m_policies->item(i)->setCheckState(policies.contains(m_policies->item(i)->text()) ? Qt::Checked
                                                                                          : Qt::Unchecked);
}

QString RunManagerPanel::historyNameOfScenario()
{
    // The document's content without the run's seed (a seed is a run setting, not an edit of the scenario).
    const io::Scenario& scenario = m_document->scenario();
    const std::uint64_t content = util::fnv1a64(io::scenarioToJson(scenario).dump());
    const QString name = QString::fromStdString(scenario.name);
    auto& contents = m_scenarioContents[name];
    auto it = std::find(contents.begin(), contents.end(), content);
    if (it == contents.end())
        it = contents.insert(contents.end(), content);
    const auto edit = it - contents.begin();
    return edit == 0 ? name : tr("%1 (edit %2)").arg(name).arg(edit);
}

QVector<JobRunner::TaskId> RunManagerPanel::runPolicies(const QStringList& policies)
{
    QVector<JobRunner::TaskId> ids;
    // Snapshot once: every run of this batch sees the same scenario, whatever is edited meanwhile.
    io::Scenario scenario = m_document->scenario();
    scenario.options.seed = static_cast<std::uint64_t>(m_seed->value());
    auto cluster = std::make_shared<const hardware::Cluster>(scenario.cluster);
    const QString scenarioName = historyNameOfScenario();
    // The same record as `orrery-cli simulate --db` makes (options included), from the same builder.
    const store::RunInfo batchInfo = io::runInfoOf(scenario, std::string(), scenario.options.seed);
    auto scenarioJson = std::make_shared<const std::string>(batchInfo.scenarioJson);
    for (const QString& policy : policies) {
        const std::string p = policy.toStdString();
        const int n = ++m_runCounter[policy];
        const QString name = n == 1 ? policy : QStringLiteral("%1 #%2").arg(policy).arg(n);
        Row row;
        row.policy = name;
        row.widget = new QWidget;
        // Two lines, so that a row fits a narrow dock without scrolling sideways: name, bar and Cancel,
        // then the phase, ETA or error under the bar, wrapping.
        auto* g = new QGridLayout(row.widget);
        g->setContentsMargins(2, 2, 2, 2);
        g->setVerticalSpacing(1);
        auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped()));
        row.bar = new QProgressBar;
        row.bar->setRange(0, 1000);
        row.bar->setMinimumWidth(60);
        row.status = new QLabel(tr("starting"));
        row.status->setWordWrap(true);
        row.cancel = new QPushButton(tr("Cancel"));
        row.cancel->setFocusPolicy(Qt::NoFocus); // a focused child would be scrolled into view
        g->addWidget(label, 0, 0);
        g->addWidget(row.bar, 0, 1);
        g->addWidget(row.cancel, 0, 2);
        g->addWidget(row.status, 1, 1, 1, 2);
        g->setColumnStretch(1, 1);
        m_rowsLayout->insertWidget(m_rowsLayout->count() - 1, row.widget);
        row.state = QStringLiteral("running");

        store::RunInfo info = batchInfo;
        info.policy = p;
        const QString storePathQ = m_storePath ? m_storePath() : QString();
        const std::string storePath = storePathQ.toStdString();
        auto work = [simulate = m_simulate, scenario, p, info, storePath](TaskContext& ctx) {
            RecordedRun out;
            std::unique_ptr<store::RunRecorder> recording;
            // A store that cannot be written must not cost the run: it goes on unrecorded, and the
            // RunSaver's attempt when it finishes reports the problem.
            const auto drop = [&recording] {
                try {
                    recording.reset();
                } catch (...) {
                }
            };
            if (!storePath.empty()) {
                try {
                    recording = std::make_unique<store::RunRecorder>(RunSaver::openForWriting(storePath),
                                                                     std::vector<store::RunInfo>{info},
                                                                     &RunSaver::storeMutex());
                } catch (const std::exception&) {
                }
            }
            sim::PartialResultFn onPartial;
            if (recording) {
                onPartial = [&recording, &drop](const sim::RunResult& partial) {
                    if (!recording)
                        return;
                    try {
                        recording->partial(0, partial);
                    } catch (const std::exception&) {
                        drop();
                    }
                };
            }
            out.result = simulate(scenario, p, ctx, onPartial);
            // A cancel that came too late to stop the simulator still cancels the run: the GUI shows it
            // cancelled, and the store must agree.
            if (ctx.isCancelled())
                out.result.cancelled = true;
            if (recording) {
                ctx.reportProgress(1.0, kPhaseSaving);
                try {
                    recording->finish(0, out.result);
                    out.storeId = recording->runId(0);
                } catch (const std::exception&) {
                    drop();
                }
            }
            if (out.result.cancelled)
                throw Cancelled(); // stored as cancelled above; the run library keeps finished runs only
            out.placementScores = placementScoresOf(scenario, out.result);
            return out;
        };
        auto onResult = [this, name, scenarioName, cluster, scenarioJson, storePathQ](RecordedRun recorded) {
            RunEntry entry;
            entry.name = name;
            entry.scenarioName = scenarioName;
            entry.storeId = recorded.storeId;
            if (recorded.storeId >= 0)
                entry.storePath = storePathQ;
            entry.result = std::make_shared<const sim::RunResult>(std::move(recorded.result));
            entry.cluster = cluster;
            entry.scenarioJson = scenarioJson;
            entry.placementScores = std::move(recorded.placementScores);
            entry.finishedAt = QDateTime::currentDateTime();
            const int id = m_runs->add(std::move(entry));
            emit runFinished(id);
        };
        const JobRunner::TaskId id = m_runner->start<RecordedRun>(
            QString(), work, this, onResult, [this, name](const QString& error) { emit runFailed(name, error); });
        connect(row.cancel, &QPushButton::clicked, this, [this, id] { cancel(id); });
        m_rows.insert(id, row);
        ids.push_back(id);
    }
    return ids;
}

void RunManagerPanel::cancel(JobRunner::TaskId id)
{
    m_runner->cancel(id);
    if (auto it = m_rows.find(id); it != m_rows.end() && it->state == QStringLiteral("running")) {
        it->cancelling = true;
        it->status->setText(tr("cancelling..."));
    }
}

const QProgressBar* RunManagerPanel::barOf(JobRunner::TaskId id) const
{
    const auto it = m_rows.find(id);
    return it == m_rows.end() ? nullptr : it->bar;
}

QString RunManagerPanel::statusTextOf(JobRunner::TaskId id) const
{
    const auto it = m_rows.find(id);
    return it == m_rows.end() ? QString() : it->status->text();
}

QString RunManagerPanel::statusOf(JobRunner::TaskId id) const
{
    return m_rows.value(id).state;
}

void RunManagerPanel::onProgress(JobRunner::TaskId id, double fraction, double etaS, const QString& message)
{
    auto it = m_rows.find(id);
    if (it == m_rows.end() || it->state != QStringLiteral("running") || it->cancelling)
        return;
    QProgressBar* bar = it->bar;
    if (message == QLatin1String(kPhasePreparing)) {
        // Expanding the workload has no fraction to show: a busy bar, not "0%" or "100%, ETA 0 s".
        bar->setRange(0, 0);
        it->status->setText(tr("preparing the workload"));
        return;
    }
    bar->setRange(0, 1000);
    bar->setValue(static_cast<int>(fraction * 1000));
    if (message == QLatin1String(kPhaseSaving))
        it->status->setText(tr("saving to the store"));
    else if (fraction >= 1.0)
        it->status->setText(tr("finishing"));
    else
        it->status->setText(etaS >= 0 ? tr("simulating, ETA %1").arg(formatDuration(etaS)) : tr("simulating"));
}

void RunManagerPanel::finishRow(JobRunner::TaskId id, const QString& state, bool keepBar)
{
    auto it = m_rows.find(id);
    if (it == m_rows.end())
        return;
    it->state = state;
    it->cancel->setEnabled(false);
    QProgressBar* bar = it->bar;
    if (bar->maximum() == 0) // still busy (preparing): a bar needs a range to show where it stopped
        bar->setRange(0, 1000), bar->setValue(0);
    if (keepBar) {
        bar->setValue(bar->maximum());
        it->status->setText(state);
    } else {
        // Where the run stopped, said as such: a cancelled or failed run never shows a full bar.
        bar->setValue(std::clamp(bar->value(), 0, bar->maximum() - 1));
        const int percent = bar->value() / 10;
        it->status->setText(state == QStringLiteral("cancelled") ? tr("cancelled at %1%").arg(percent) : state);
    }
    // Checked after the result callback has added the run (it runs right after this signal).
    QTimer::singleShot(0, this, [this] {
        bool any = false;
        for (const auto& r : m_rows)
            any = any || r.state == QStringLiteral("running");
        if (!any && !m_rows.isEmpty())
            emit allFinished();
    });
}

} // namespace orrery::gui
