#include "runs/run_saver.h"

#include "io/run_info.h"
#include "io/scenario.h"
#include "results/run_library.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"

#include <filesystem>
#include <mutex>
#include <optional>

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

store::RunStore RunSaver::openForWriting(const std::string& path)
{
    std::lock_guard lock(storeMutex());
    // The first run on this machine: ~/.local/share/orrery may not exist yet.
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent);
    return store::RunStore(path);
}

store::RunStore RunSaver::openForReading(const std::string& path)
{
    bool older = false;
    try {
        store::Connection probe(path, store::Connection::Mode::ReadOnly);
        const auto version = probe.queryInt("PRAGMA user_version");
        older = version > 0 && version < store::schemaVersion();
    } catch (const std::exception&) {
        // Not readable as SQLite: the read-only open below says why, naming the file.
    }
    if (older)
        store::RunStore upgraded(path); // migrates; refuses a damaged file with its own message
    store::RunStore::Options options;
    options.access = store::RunStore::Access::ReadOnly;
    return store::RunStore(path, options);
}

void RunSaver::save(int runId)
{
    const RunEntry* entry = m_runs->find(runId);
    if (entry && entry->storeId >= 0) {
        emit saved(runId, entry->storeId); // recorded while it ran (store::RunRecorder)
        return;
    }
    if (!entry || !entry->result || m_path.isEmpty())
        return;
    auto result = entry->result;
    auto scenarioJson = entry->scenarioJson;
    const std::string label = entry->name.toStdString();
    const std::string path = m_path.toStdString();
    m_runner->start<qint64>(
        QString(),
        [result, scenarioJson, label, path](TaskContext&) {
            // The scenario as run, read back, gives the record the CLI would store (io::runInfoOf).
            const io::Scenario scenario =
                io::parseScenarioText(scenarioJson ? *scenarioJson : std::string("{}"), "run " + label);
            const store::RunInfo info = io::runInfoOf(scenario, result->policy, result->seed);
            std::optional<store::RunStore> db(openForWriting(path));
            std::lock_guard lock(storeMutex()); // closing checkpoints the file: under the lock too
            const auto id = static_cast<qint64>(db->storeRun(info, *result));
            db.reset();
            return id;
        },
        this,
        [this, runId, path = m_path](qint64 id) {
            m_runs->setStoreId(runId, path, id);
            emit saved(runId, id);
        },
        [this, runId](const QString& error) { emit failed(runId, error); });
}

} // namespace orrery::gui
