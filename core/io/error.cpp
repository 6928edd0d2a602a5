#include "io/error.h"

namespace orrery {

Error::Error(std::string message)
    : std::runtime_error(message), m_message(std::move(message))
{
}

Error::Error(std::string file, std::string location, std::string message)
    : std::runtime_error(render(file, location, message)),
      m_file(std::move(file)),
      m_location(std::move(location)),
      m_message(std::move(message))
{
}

Error Error::inFile(const std::string& file) const
{
    if (!m_file.empty())
        return *this;
    return Error(file, m_location, m_message);
}

std::string Error::render(const std::string& file, const std::string& location,
                          const std::string& message)
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
