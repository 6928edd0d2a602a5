#include "runs/run_recording.h"

#include "runs/run_saver.h"
#include "store/run_store.h"
#include "store/run_writer.h"

#include <filesystem>
#include <mutex>

namespace orrery::gui {

RunRecording::RunRecording(const std::string& path, const store::RunInfo& info)
{
    std::lock_guard lock(RunSaver::storeMutex());
    // The first run on a machine: ~/.local/share/orrery may not exist yet.
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent);
    m_store = std::make_unique<store::RunStore>(path);
    m_writer = std::make_unique<store::RunWriter>(m_store->beginRun(info));
}

RunRecording::~RunRecording()
{
    if (!m_writer)
        return;
    std::lock_guard lock(RunSaver::storeMutex());
    m_writer.reset(); // an unfinished writer marks its run failed
    m_store.reset();
}

void RunRecording::partial(const sim::RunResult& partial)
{
    const auto now = std::chrono::steady_clock::now();
    if (m_lastSync && now - *m_lastSync < std::chrono::duration<double>(kSyncS))
        return;
    std::lock_guard lock(RunSaver::storeMutex());
    m_writer->sync(partial);
    m_lastSync = now;
}

std::int64_t RunRecording::finish(const sim::RunResult& result)
{
    std::lock_guard lock(RunSaver::storeMutex());
    m_writer->finish(result, result.cancelled ? store::RunStatus::Cancelled : store::RunStatus::Completed);
    return m_writer->runId();
}

} // namespace orrery::gui
