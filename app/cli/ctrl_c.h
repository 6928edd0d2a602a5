#pragma once

namespace orrery::cli {

/**
 * While held, Ctrl-C (SIGINT) only sets a flag that `requested()` reads, so a long command can stop its workers
 * and keep what is done; `release()` (or the destructor) puts the previous handler back, after which Ctrl-C ends
 * the process again. The flag is process-wide, as signals are: hold one at a time.
 */
class CtrlCGuard
{
public:
    CtrlCGuard();
    ~CtrlCGuard();
    CtrlCGuard(const CtrlCGuard&) = delete;
    CtrlCGuard& operator=(const CtrlCGuard&) = delete;

    /** Whether Ctrl-C was pressed since this guard was taken. */
    bool requested() const;
    /** Restores the previous handler; a second call does nothing. */
    void release();

private:
    void (*m_previous)(int) = nullptr;
    bool m_held = false;
};

} // namespace orrery::cli
