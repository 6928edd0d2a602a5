#pragma once

#include <optional>
#include <string>

namespace orrery::cli {

/**
 * The count in a "NAME:COUNT" option entry (`serve --models bert-6.7b:2`, `plan --gpus a100:8`): a whole
 * positive number and nothing else, or nullopt ("", "0", "-1", "3x", a number past int's range), so that
 * each command names its own option in the error.
 */
std::optional<int> parsePositiveCount(const std::string& text);

} // namespace orrery::cli
