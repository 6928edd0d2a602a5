#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace orrery::util {

std::string toLower(std::string_view s);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
/**
 * Reads a whole regular file; throws orrery::Error naming the file when it cannot, when it is not a
 * regular file (a directory, /dev/zero, a FIFO) or when it is larger than io::limits::kMaxFileBytes.
 */
std::string readFile(const std::string& path);
/** Byte offset of the first byte that is not part of well-formed UTF-8, or npos. */
std::size_t invalidUtf8At(std::string_view s);
/** `s` with every byte that is not well-formed UTF-8 written as `\xNN` (messages must stay UTF-8). */
std::string sanitizeUtf8(std::string_view s);
/** The longest prefix of `s` of at most `maxBytes` bytes that does not split a UTF-8 character. */
std::string_view utf8Prefix(std::string_view s, std::size_t maxBytes);
/** The last path component, for short error messages. */
std::string baseName(const std::string& path);

} // namespace orrery::util
