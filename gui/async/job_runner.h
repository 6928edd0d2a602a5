#pragma once

#include "async/task_context.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <memory>
#include <optional>

namespace orrery::gui {

/**
 * The GUI's one way to run long work. A task is a function of its inputs,
 * captured *by value* when it starts, plus a TaskContext; it must not touch
 * GUI-owned objects. Results come back on the GUI thread through a callback
 * bound to a context object (dropped if that object is gone).
 *
 * Tasks started with the same non-empty key are "latest wins": starting a new
 * one cancels the previous one and its result, if it still arrives, is dropped.
 */
class JobRunner : public QObject
{
    Q_OBJECT
public:
    using TaskId = quint64;

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    template <class T>
    TaskId start(const QString& key, std::function<T(TaskContext&)> work, QObject* context,
                 std::function<void(T)> onResult, std::function<void(const QString&)> onError = {});

    void cancel(TaskId id);
    void cancelAll();
    bool isRunning(TaskId id) const { return m_tasks.contains(id); }
    int runningCount() const { return static_cast<int>(m_tasks.size()); }
    /** Blocks until every worker has returned (shutdown and tests). */
    void waitForDone();
    QThreadPool* pool() { return &m_pool; }
    /**
     * Called at the start of every task, on its worker: the worker thread runs at a lower scheduling
     * priority (Linux: nice +10 for that thread only, once per thread) so that on a machine with
     * few cores the GUI thread wins the CPU from simulations and searches, and the event loop keeps
     * ticking. Elsewhere it does nothing.
     */
    static void lowerWorkerPriority();

signals:
    void taskStarted(orrery::gui::JobRunner::TaskId id, const QString& key);
    /** Sampled every 100 ms while running. etaS < 0 when unknown. */
    void taskProgress(orrery::gui::JobRunner::TaskId id, double fraction, double etaS, const QString& message);
    void taskFinished(orrery::gui::JobRunner::TaskId id);
    void taskFailed(orrery::gui::JobRunner::TaskId id, const QString& error);
    void taskCancelled(orrery::gui::JobRunner::TaskId id);

private:
    template <class T> struct Outcome
    {
        std::optional<T> value;
        QString error;
        bool cancelled = false;
    };
    struct Task
    {
        QString key;
        std::shared_ptr<TaskContext> context;
        QElapsedTimer clock;
    };

    TaskId registerTask(const QString& key, const std::shared_ptr<TaskContext>& context);
    /** Removes the task; true when its result should be delivered. */
    bool finishTask(TaskId id, bool cancelled, const QString& error);
    void sampleProgress();

    QThreadPool m_pool;
    QTimer m_progressTimer;
    QHash<TaskId, Task> m_tasks;
    QHash<QString, TaskId> m_latestByKey;
    TaskId m_nextId = 1;
};

template <class T>
JobRunner::TaskId JobRunner::start(const QString& key, std::function<T(TaskContext&)> work, QObject* context,
                                   std::function<void(T)> onResult, std::function<void(const QString&)> onError)
{
    auto ctx = std::make_shared<TaskContext>();
    const TaskId id = registerTask(key, ctx);
    auto* watcher = new QFutureWatcher<Outcome<T>>(this);
    QPointer<QObject> guard(context);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, guard, onResult, onError] {
        Outcome<T> outcome = watcher->result();
        watcher->deleteLater();
        const bool deliver = finishTask(id, outcome.cancelled, outcome.error);
        if (!deliver || !guard)
            return;
        if (outcome.value)
            onResult(std::move(*outcome.value));
        else if (!outcome.error.isEmpty() && onError)
            onError(outcome.error);
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [work = std::move(work), ctx]() -> Outcome<T> {
        lowerWorkerPriority();
        Outcome<T> out;
        try {
            out.value.emplace(work(*ctx));
            if (ctx->isCancelled())
                out.cancelled = true;
        } catch (const std::exception& e) {
            out.value.reset();
            if (ctx->isCancelled())
                out.cancelled = true;
            else
                out.error = QString::fromStdString(e.what());
        } catch (...) {
            out.value.reset();
            out.error = QStringLiteral("unknown error");
        }
        return out;
    }));
    return id;
}

} // namespace orrery::gui
