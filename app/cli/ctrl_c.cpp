#include "ctrl_c.h"

#include <atomic>
#include <csignal>

namespace orrery::cli {

namespace {

std::atomic<bool> g_ctrlC{false};

extern "C" void onCtrlC(int)
{
    g_ctrlC = true;
}

} // namespace

CtrlCGuard::CtrlCGuard()
{
    g_ctrlC = false;
    m_previous = std::signal(SIGINT, onCtrlC);
    m_held = true;
}

CtrlCGuard::~CtrlCGuard()
{
    release();
}

bool CtrlCGuard::requested() const
{
    return g_ctrlC;
}

void CtrlCGuard::release()
{
    if (!m_held)
        return;
    std::signal(SIGINT, m_previous);
    m_held = false;
}

} // namespace orrery::cli
