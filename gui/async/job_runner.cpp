#include "async/job_runner.h"

#include <algorithm>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace orrery::gui {

void JobRunner::lowerWorkerPriority()
{
#ifdef __linux__
    thread_local bool lowered = false;
    if (!lowered) {
        lowered = true;
        // On Linux, setpriority(PRIO_PROCESS, tid) changes one thread's nice value (a documented
        // departure from POSIX); failure (e.g. a seccomp sandbox) leaves the priority as it was.
        const int tid = static_cast<int>(::syscall(SYS_gettid));
        const int current = ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
        (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), std::min(19, current + 10));
    }
#endif
}

JobRunner::JobRunner(QObject* parent) : QObject(parent)
{
    m_progressTimer.setInterval(100);
    connect(&m_progressTimer, &QTimer::timeout, this, &JobRunner::sampleProgress);
}

JobRunner::~JobRunner()
{
    cancelAll();
    m_pool.waitForDone();
}

JobRunner::TaskId JobRunner::registerTask(const QString& key, const std::shared_ptr<TaskContext>& context)
{
    const TaskId id = m_nextId++;
    if (!key.isEmpty()) {
        if (auto previous = m_latestByKey.find(key); previous != m_latestByKey.end())
            cancel(previous.value());
        m_latestByKey.insert(key, id);
    }
    Task task{key, context, {}};
    task.clock.start();
    m_tasks.insert(id, std::move(task));
    if (!m_progressTimer.isActive())
        m_progressTimer.start();
    emit taskStarted(id, key);
    return id;
}

bool JobRunner::finishTask(TaskId id, bool cancelled, const QString& error)
{
    const auto it = m_tasks.find(id);
    if (it == m_tasks.end())
        return false;
    const QString key = it->key;
    const bool wasCancelled = cancelled || it->context->isCancelled();
    m_tasks.erase(it);
    // A superseded task's result is stale even if it completed.
    const bool latest = key.isEmpty() || m_latestByKey.value(key) == id;
    if (latest && !key.isEmpty())
        m_latestByKey.remove(key);
    if (m_tasks.isEmpty())
        m_progressTimer.stop();
    if (wasCancelled) {
        emit taskCancelled(id);
        return false;
    }
    if (!error.isEmpty()) {
        emit taskFailed(id, error);
        return latest;
    }
    emit taskFinished(id);
    return latest;
}

void JobRunner::cancel(TaskId id)
{
    if (auto it = m_tasks.find(id); it != m_tasks.end())
        it->context->requestCancel();
}

void JobRunner::cancelAll()
{
    for (auto& task : m_tasks)
        task.context->requestCancel();
}

void JobRunner::waitForDone()
{
    m_pool.waitForDone();
}

void JobRunner::sampleProgress()
{
    for (auto it = m_tasks.cbegin(); it != m_tasks.cend(); ++it) {
        // A cancelled task reports no more progress: core may still say 100% as it winds down.
        if (it->context->isCancelled())
            continue;
        const double fraction = it->context->fraction();
        const double elapsedS = static_cast<double>(it->clock.elapsed()) / 1000.0;
        // Linear extrapolation; meaningless before a little progress is made.
        const double etaS = fraction > 0.02 ? elapsedS * (1.0 - fraction) / fraction : -1.0;
        emit taskProgress(it.key(), fraction, etaS, QString::fromStdString(it->context->message()));
    }
}

} // namespace orrery::gui
