#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace orrery::util {

/**
 * The random stream of CPython's `random.Random(seed)` for integer seeds:
 * MT19937 seeded by init_by_array with the seed's 32-bit words, and
 * `randrange(n)` by rejection on `getrandbits(bit_length(n))`. Used where
 * Orrery reproduces a Python simulator draw for draw (Gavel's FIFO under
 * gavel_compat); std::uniform_int_distribution would give other draws, and
 * different ones per standard library.
 */
class PythonRandom
{
public:
    explicit PythonRandom(std::uint64_t seed = 0);

    /** `random.getrandbits(32)`. */
    std::uint32_t next32();
    /** `random.getrandbits(bits)` for 1 <= bits <= 32. */
    std::uint32_t bits(int bits);
    /** `random.randrange(n)` for 1 <= n < 2^32: uniform in [0, n). */
    std::uint32_t below(std::uint32_t n);
    /** `random.shuffle(items)`: Fisher-Yates from the back, one `randrange(i + 1)` per position. */
    template <typename T> void shuffle(std::vector<T>& items)
    {
        for (std::size_t i = items.size(); i-- > 1;)
            std::swap(items[i], items[below(static_cast<std::uint32_t>(i + 1))]);
    }

private:
    static constexpr int kN = 624;
    void twist();

    std::array<std::uint32_t, kN> m_state{};
    int m_index = kN;
};

} // namespace orrery::util
