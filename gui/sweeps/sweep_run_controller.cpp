#include "sweeps/sweep_run_controller.h"

#include "runs/run_saver.h"
#include "store/run_store.h"
#include "store/sweep_records.h"

#include <QThread>

#include <fmt/format.h>

#include <filesystem>

namespace orrery::gui {

QString clockText(double seconds)
{
    if (!(seconds >= 0) || seconds > 1e8)
        return QStringLiteral("?");
    const auto t = static_cast<long long>(seconds + 0.5);
    return t >= 3600 ? QString::asprintf("%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60)
                     : QString::asprintf("%lld:%02lld", t / 60, t % 60);
}

namespace {

/** Keys of the sweep's points the store holds completed; none when the file does not exist yet. */
std::unordered_set<std::string> storedKeys(const std::string& path, const std::string& sweep)
{
    if (!std::filesystem::exists(path))
        return {};
    std::lock_guard lock(RunSaver::storeMutex());
    store::RunStore db = RunSaver::openForReading(path);
    return store::completedPointKeys(db.connection(), sweep);
}

} // namespace

SweepRunController::SweepRunController(JobRunner* runner, QObject* parent) : QObject(parent), m_runner(runner)
{
    connect(m_runner, &JobRunner::taskCancelled, this, [this](JobRunner::TaskId id) {
        if (id == m_prepareTask) {
            m_prepareTask = 0;
            emit prepareFailed(tr("Preparing the sweep was cancelled."));
        }
        ended(id);
    });
    connect(m_runner, &JobRunner::taskFinished, this, &SweepRunController::ended);
    connect(m_runner, &JobRunner::taskFailed, this, &SweepRunController::ended);
    connect(m_runner, &JobRunner::taskProgress, this,
            [this](JobRunner::TaskId id, double, double, const QString& text) {
                if (id != m_runTask || !m_state)
                    return;
                const auto done = m_state->done.load(), total = m_state->total.load();
                const double elapsed = m_state->elapsedS.load();
                const double eta = done > 0 ? elapsed / double(done) * double(total - done) : -1;
                emit progress(static_cast<int>(done), static_cast<int>(total), eta, text);
            });
}

void SweepRunController::prepare(const QString& specPath, const QString& databasePath, bool estimate)
{
    prepareWith(specPath, databasePath, estimate,
                [path = specPath.toStdString()] { return sweep::loadSweepSpec(path); });
}

void SweepRunController::prepare(sweep::SweepSpec spec, const QString& label, const QString& databasePath,
                                 bool estimate)
{
    prepareWith(label, databasePath, estimate, [spec = std::move(spec)] { return spec; });
}

void SweepRunController::prepareWith(const QString& label, const QString& databasePath, bool estimate,
                                     std::function<sweep::SweepSpec()> load)
{
    if (isRunning())
        return;
    m_prepared.reset();
    m_prepareTask = m_runner->start<std::shared_ptr<Prepared>>(
        QStringLiteral("sweep-prepare"),
        [label, databasePath, estimate, load = std::move(load)](TaskContext& ctx) {
            auto p = std::make_shared<Prepared>();
            p->specPath = label;
            p->databasePath = databasePath;
            // Every error of the spec (file, JSON path, axis and value) comes out of here, before anything runs.
            p->plan = std::make_shared<const sweep::SweepPlan>(sweep::resolveSweep(load()));
            const auto done = storedKeys(databasePath.toStdString(), p->plan->spec.name);
            const auto toRun = sweep::pointsToRun(*p->plan, {}, done);
            p->toRun = toRun.size();
            p->alreadyStored = p->plan->points.size() - toRun.size();
            p->cache = std::make_shared<sweep::WorkloadCache>();
            if (estimate && !toRun.empty())
                p->estimate = sweep::estimateCpu(*p->plan, toRun, *p->cache, 2.0, 8, ctx.stopToken());
            return p;
        },
        this,
        [this](std::shared_ptr<Prepared> p) {
            m_prepareTask = 0;
            m_prepared = std::move(p);
            emit preparedReady();
        },
        [this](const QString& error) {
            m_prepareTask = 0;
            emit prepareFailed(error);
        });
}

QString SweepRunController::summaryText() const
{
    if (!m_prepared)
        return {};
    const auto& p = *m_prepared;
    const auto& plan = *p.plan;
    QString text = tr("Sweep \"%1\" (%2): %n point(s) over %3 scenario(s).", nullptr, int(plan.points.size()))
                       .arg(QString::fromStdString(plan.spec.name), p.specPath)
                       .arg(plan.scenarioCount);
    text += QLatin1Char('\n') +
            tr("%1 already stored in %2; %3 to run.").arg(p.alreadyStored).arg(p.databasePath).arg(p.toRun);
    if (p.estimate) {
        const int threads = std::max(1, QThread::idealThreadCount());
        text += QLatin1Char('\n') + tr("Estimated CPU time: %1 (%2 s), about %3 wall on %4 thread(s).")
                                        .arg(clockText(p.estimate->cpuS))
                                        .arg(p.estimate->cpuS, 0, 'f', 1)
                                        .arg(clockText(p.estimate->cpuS / threads))
                                        .arg(threads);
        text += QLatin1Char('\n') + tr("From %1.").arg(QString::fromStdString(p.estimate->method));
    }
    return text;
}

void SweepRunController::start(int jobs)
{
    if (!m_prepared || isRunning())
        return;
    auto prepared = std::move(m_prepared); // its samples are stored by this run: it is used once
    auto state = std::make_shared<State>();
    state->total = prepared->toRun;
    m_state = state;
    const int threads = jobs > 0 ? jobs : std::max(1, QThread::idealThreadCount());
    m_runTask = m_runner->start<int>(
        QStringLiteral("sweep-run"),
        [prepared, state, threads](TaskContext& ctx) {
            Outcome out;
            try {
                std::optional<store::RunStore> db(RunSaver::openForWriting(prepared->databasePath.toStdString()));
                sweep::SweepRunOptions options;
                options.jobs = threads;
                options.stop = ctx.stopToken();
                options.storeMutex = &RunSaver::storeMutex();
                options.onProgress = [&](const sweep::SweepProgress& p) {
                    state->done = p.done;
                    state->total = p.total;
                    state->failed = p.failed;
                    state->elapsedS = p.elapsedS;
                    const double eta =
                        p.done ? p.elapsedS / static_cast<double>(p.done) * static_cast<double>(p.total - p.done) : -1;
                    ctx.reportProgress(p.total ? static_cast<double>(p.done) / static_cast<double>(p.total) : 1.0,
                                       fmt::format("{} / {} points{}, elapsed {}, ETA {}", p.done, p.total,
                                                   p.failed ? fmt::format(", {} failed", p.failed) : std::string(),
                                                   clockText(p.elapsedS).toStdString(), clockText(eta).toStdString()));
                };
                std::vector<sweep::SampledPoint> samples;
                if (prepared->estimate)
                    samples = std::move(prepared->estimate->samples);
                const sweep::SweepRunSummary s =
                    sweep::runSweep(*prepared->plan, *db, options, *prepared->cache, std::move(samples));
                {
                    std::lock_guard lock(RunSaver::storeMutex()); // closing checkpoints the file
                    db.reset();
                }
                out.ran = s.ran;
                out.failed = s.failed;
                out.alreadyStored = s.alreadyStored;
                out.notRun = s.notRun;
                out.stopped = s.stopped;
            } catch (const std::exception& e) {
                out.error = QString::fromStdString(e.what());
                out.stopped = ctx.isCancelled();
            }
            std::lock_guard lock(state->mutex);
            state->outcome = out;
            return 0;
        },
        this, [](int) {});
}

void SweepRunController::cancel()
{
    if (m_prepareTask)
        m_runner->cancel(m_prepareTask);
    if (m_runTask)
        m_runner->cancel(m_runTask);
}

void SweepRunController::ended(JobRunner::TaskId id)
{
    if (id != m_runTask || !m_state)
        return;
    m_runTask = 0;
    {
        std::lock_guard lock(m_state->mutex);
        m_outcome = m_state->outcome;
    }
    emit finished(m_outcome);
}

} // namespace orrery::gui
