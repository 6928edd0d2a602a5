#pragma once

#include <stdexcept>
#include <string>

namespace orrery {

/**
 * An input problem, with enough context for a user to find it: the file, the
 * line (text formats) or JSON path (JSON formats), and the field.
 *
 * what() renders the canonical one-line form, e.g.
 *   default.json: cluster.nodes[3].count: expected a positive integer, got -2
 *   trace.csv:17: duration: expected a number, got "abc"
 */
class Error : public std::runtime_error
{
public:
    explicit Error(std::string message);
    Error(std::string file, std::string location, std::string message);

    const std::string& file() const { return m_file; }
    /** JSON path (`cluster.nodes[3].count`) or `LINE: field`; empty when unknown. */
    const std::string& location() const { return m_location; }
    const std::string& message() const { return m_message; }

    /** The same error, attributed to a file (used when a reader is given a file name late). */
    Error inFile(const std::string& file) const;

private:
    static std::string render(const std::string& file, const std::string& location, const std::string& message);

    std::string m_file;
    std::string m_location;
    std::string m_message;
};

/** Thrown by a computation that was asked to stop (cancel button, Ctrl-C). */
class Cancelled : public std::runtime_error
{
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace orrery
