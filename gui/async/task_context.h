#pragma once

#include <atomic>
#include <mutex>
#include <stop_token>
#include <string>

namespace orrery::gui {

/**
 * What a worker sees of its task: a cancel flag to poll (or hand to core) and
 * a progress sink. Both are thread-safe and never touch Qt objects; the GUI
 * thread samples the progress on a timer, so a chatty core cannot flood the
 * event loop.
 */
class TaskContext
{
public:
    bool isCancelled() const { return m_stop.stop_requested(); }
    /** For core APIs (util::Progress::stop). */
    std::stop_token stopToken() const { return m_stop.get_token(); }
    void requestCancel() { m_stop.request_stop(); }

    /** fraction in [0, 1]; message is optional ("412 / 1000 jobs"). */
    void reportProgress(double fraction, const std::string& message = {})
    {
        m_fraction.store(fraction, std::memory_order_relaxed);
        if (!message.empty()) {
            std::lock_guard lock(m_mutex);
            m_message = message;
        }
    }
    double fraction() const { return m_fraction.load(std::memory_order_relaxed); }
    std::string message() const
    {
        std::lock_guard lock(m_mutex);
        return m_message;
    }

private:
    std::stop_source m_stop;
    std::atomic<double> m_fraction{0.0};
    mutable std::mutex m_mutex;
    std::string m_message;
};

} // namespace orrery::gui
