#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace orrery::util {

std::string toLower(std::string_view s);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
/** Reads a whole file; throws orrery::Error naming the file when it cannot. */
std::string readFile(const std::string& path);
/** The last path component, for short error messages. */
std::string baseName(const std::string& path);

} // namespace orrery::util
