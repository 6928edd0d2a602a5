#pragma once

#include <coin/CoinFinite.hpp>

#include <cmath>
#include <vector>

namespace orrery::opt::coin {

/** COIN-OR marks a missing bound with COIN_DBL_MAX; the model says infinity. */
inline double coinBound(double v)
{
    if (std::isinf(v))
        return v > 0 ? COIN_DBL_MAX : -COIN_DBL_MAX;
    return v;
}

inline std::vector<double> coinBounds(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        out[i] = coinBound(values[i]);
    return out;
}

} // namespace orrery::opt::coin
