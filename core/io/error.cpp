#include "io/error.h"

#include "util/text.h"

namespace orrery {

// Messages quote the bad value, and a bad value may be a Latin-1 byte or half a character: kept raw,
// it would make every JSON rendering of the error (`scenario check --json`) throw instead of print.
Error::Error(std::string message)
    : std::runtime_error(util::sanitizeUtf8(message)), m_message(util::sanitizeUtf8(message))
{}

Error::Error(std::string file, std::string location, std::string message)
    : std::runtime_error(render(util::sanitizeUtf8(file), util::sanitizeUtf8(location), util::sanitizeUtf8(message))),
      m_file(util::sanitizeUtf8(file)), m_location(util::sanitizeUtf8(location)), m_message(util::sanitizeUtf8(message))
{}

Error Error::inFile(const std::string& file) const
{
    if (!m_file.empty())
        return *this;
    return Error(file, m_location, m_message);
}

std::string Error::render(const std::string& file, const std::string& location, const std::string& message)
{
    std::string out;
    // Text formats locate by line: `trace.csv:17: duration: ...`, the compiler-style
    // form editors and terminals turn into links; JSON paths keep `file: path: ...`.
    const bool lineLocation = !location.empty() && location.front() >= '0' && location.front() <= '9';
    if (!file.empty())
        out += file + (lineLocation ? ":" : ": ");
    if (!location.empty())
        out += location + ": ";
    return out + message;
}

} // namespace orrery
