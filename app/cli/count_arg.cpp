#include "count_arg.h"

#include <stdexcept>

namespace orrery::cli {

std::optional<int> parsePositiveCount(const std::string& text)
{
    try {
        std::size_t used = 0;
        const int count = std::stoi(text, &used);
        if (used != text.size() || count < 1)
            return std::nullopt;
        return count;
    } catch (const std::exception&) { // invalid_argument, out_of_range
        return std::nullopt;
    }
}

} // namespace orrery::cli
