#include "util/python_random.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

namespace orrery::util {

namespace {

constexpr int kM = 397;
constexpr std::uint32_t kMatrixA = 0x9908b0dfU;
constexpr std::uint32_t kUpper = 0x80000000U;
constexpr std::uint32_t kLower = 0x7fffffffU;

} // namespace

PythonRandom::PythonRandom(std::uint64_t seed)
{
    // CPython seeds from abs(seed) split into 32-bit words, least significant first; 0 is one word 0.
    std::vector<std::uint32_t> key{static_cast<std::uint32_t>(seed)};
    if (seed >> 32)
        key.push_back(static_cast<std::uint32_t>(seed >> 32));

    // MT19937's init_genrand(19650218) followed by init_by_array(key) (Matsumoto & Nishimura, 2002).
    m_state[0] = 19650218U;
    for (int i = 1; i < kN; ++i) {
        const std::uint32_t prev = m_state[static_cast<std::size_t>(i - 1)];
        m_state[static_cast<std::size_t>(i)] = 1812433253U * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(i);
    }
    int i = 1;
    std::size_t j = 0;
    for (int k = std::max<int>(kN, static_cast<int>(key.size())); k > 0; --k) {
        const std::uint32_t prev = m_state[static_cast<std::size_t>(i - 1)];
        auto& cur = m_state[static_cast<std::size_t>(i)];
        cur = (cur ^ ((prev ^ (prev >> 30)) * 1664525U)) + key[j] + static_cast<std::uint32_t>(j);
        if (++i >= kN) {
            m_state[0] = m_state[kN - 1];
            i = 1;
        }
        if (++j >= key.size())
            j = 0;
    }
    for (int k = kN - 1; k > 0; --k) {
        const std::uint32_t prev = m_state[static_cast<std::size_t>(i - 1)];
        auto& cur = m_state[static_cast<std::size_t>(i)];
        cur = (cur ^ ((prev ^ (prev >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
        if (++i >= kN) {
            m_state[0] = m_state[kN - 1];
            i = 1;
        }
    }
    m_state[0] = kUpper; // a non-zero initial state is assured
    m_index = kN;
}

void PythonRandom::twist()
{
    for (int k = 0; k < kN; ++k) {
        const std::uint32_t y = (m_state[static_cast<std::size_t>(k)] & kUpper) |
                                (m_state[static_cast<std::size_t>((k + 1) % kN)] & kLower);
        m_state[static_cast<std::size_t>(k)] =
            m_state[static_cast<std::size_t>((k + kM) % kN)] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    m_index = 0;
}

std::uint32_t PythonRandom::next32()
{
    if (m_index >= kN)
        twist();
    std::uint32_t y = m_state[static_cast<std::size_t>(m_index++)];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

std::uint32_t PythonRandom::bits(int bits)
{
    if (bits < 1 || bits > 32)
        throw std::invalid_argument("PythonRandom::bits: 1 to 32 bits");
    return next32() >> (32 - bits);
}

std::uint32_t PythonRandom::below(std::uint32_t n)
{
    if (n == 0)
        throw std::invalid_argument("PythonRandom::below: empty range");
    const int k = std::bit_width(n); // bit_length(n), not of n - 1: CPython draws one bit even for n = 1
    std::uint32_t r = bits(k);
    while (r >= n)
        r = bits(k);
    return r;
}

} // namespace orrery::util
