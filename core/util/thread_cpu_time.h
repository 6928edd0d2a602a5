#pragma once

#include <ctime>

namespace orrery::util {

/** CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID): what one simulation costs, whatever else
 *  the machine runs meanwhile. */
inline double threadCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace orrery::util
