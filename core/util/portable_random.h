#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace orrery::util {

/**
 * Random numbers that are the same on every platform: std::mt19937_64 is fully
 * specified by the standard, but std::*_distribution are not (libstdc++ and
 * libc++ draw different values), so the distributions are written out here.
 */
class PortableRandom
{
public:
    explicit PortableRandom(std::uint64_t seed) : m_engine(seed) {}

    /** Uniform in [0, 1), from the top 53 bits. */
    double uniform() { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53; }
    /** Exponential with the given mean, by inverse CDF of one uniform draw. */
    static double exponential(double mean, double u) { return -mean * std::log1p(-u); }

private:
    std::mt19937_64 m_engine;
};

} // namespace orrery::util
