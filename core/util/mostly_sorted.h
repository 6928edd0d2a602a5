#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace orrery::util {

/**
 * std::stable_sort(first, last, less), in far fewer steps when the range is already nearly in order: an insertion
 * sort (stable, linear on a sorted range, no buffer), which hands what is left to std::stable_sort once it has moved
 * more than a few elements per element (so never quadratic). The result is std::stable_sort's: the part sorted so far
 * keeps equal elements in their order, and stable_sort keeps them so.
 */
template <class It, class Less> void stableSortMostlySorted(It first, It last, Less less)
{
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    std::size_t movesLeft = 4 * n + 16;
    for (It i = first; i != last; ++i) {
        if (i == first || !less(*i, *std::prev(i)))
            continue;
        auto value = std::move(*i);
        It hole = i;
        do {
            *hole = std::move(*std::prev(hole));
            --hole;
        } while (hole != first && less(value, *std::prev(hole)) && --movesLeft > 0);
        *hole = std::move(value);
        if (movesLeft == 0) {
            std::stable_sort(first, last, less);
            return;
        }
    }
}

} // namespace orrery::util
