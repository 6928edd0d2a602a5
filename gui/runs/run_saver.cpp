#include "runs/run_saver.h"

#include "hardware/gpu_layout.h"
#include "results/run_library.h"
#include "store/run_store.h"

#include <QDir>
#include <QFileInfo>

#include <mutex>

namespace orrery::gui {

RunSaver::RunSaver(RunLibrary* runs, JobRunner* runner, QString databasePath, QObject* parent)
    : QObject(parent), m_runs(runs), m_runner(runner), m_path(std::move(databasePath))
{
    connect(runs, &RunLibrary::runAdded, this, &RunSaver::save);
}

std::mutex& RunSaver::storeMutex()
{
    static std::mutex mutex;
    return mutex;
}

void RunSaver::save(int runId)
{
    const RunEntry* entry = m_runs->find(runId);
    if (entry && entry->storeId >= 0) {
        emit saved(runId, entry->storeId); // recorded while it ran (RunRecording)
        return;
    }
    if (!entry || !entry->result || m_path.isEmpty())
        return;
    store::RunInfo info;
    info.scenarioName = entry->scenarioName.toStdString();
    info.scenarioJson = entry->scenarioJson ? *entry->scenarioJson : std::string("{}");
    info.policy = entry->result->policy;
    info.seed = entry->result->seed;
    info.gpuTypes = entry->result->gpuTypes;
    if (entry->cluster)
        info.layout = hardware::gpuLayoutOf(*entry->cluster);
    auto result = entry->result;
    QDir().mkpath(QFileInfo(m_path).absolutePath()); // first run on this machine: ~/.local/share/orrery may not exist
    const std::string path = m_path.toStdString();
    m_runner->start<qint64>(
        QString(),
        [info, result, path](TaskContext&) {
            std::lock_guard lock(storeMutex());
            return static_cast<qint64>(store::RunStore(path).storeRun(info, *result));
        },
        this,
        [this, runId](qint64 id) {
            m_runs->setStoreId(runId, id);
            emit saved(runId, id);
        },
        [this, runId](const QString& error) { emit failed(runId, error); });
}

} // namespace orrery::gui
