#include "opt/milp.h"

#include "opt/coin_module.h"
#include "opt/solver_clock.h"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace orrery::opt {

namespace {

/**
 * CBC allocates and frees blocks of a few hundred KiB at every node. glibc gives the top of the heap back to the
 * kernel whenever more than 128 KiB of it is free (its trim threshold), so each node moved the heap's end down and
 * up again and faulted its pages back in: half the CPU of a 454-node solve of Sia's ILP went to brk and page faults
 * (docs/performance.md, "Sia at scale"). Keeping up to kHeapSlackBytes of free heap ends that; it is a process-wide
 * setting, made once, before the first MILP.
 */
void keepHeapSlack()
{
#if defined(__GLIBC__)
    constexpr int kHeapSlackBytes = 64 << 20;
    static std::once_flag once;
    std::call_once(once, [] { mallopt(M_TRIM_THRESHOLD, kHeapSlackBytes); });
#endif
}

} // namespace

MilpResult solveMilp(const LinearModel& model, Limits limits, const MilpOptions& options)
{
    keepHeapSlack();
    const SolverTimer timer;
    MilpResult out = coin::api().solveMilp(model, model.columnMajor(), limits, options);
    out.solveS = timer.elapsedS();
    return out;
}

} // namespace orrery::opt
