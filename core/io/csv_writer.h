#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace orrery::io {

/**
 * Writes RFC 4180 CSV: fields separated by commas, records ended by CRLF,
 * fields holding a comma, quote, CR or LF quoted with inner quotes doubled.
 */
class CsvWriter
{
public:
    explicit CsvWriter(std::ostream& out) : m_out(out) {}

    CsvWriter& field(std::string_view text);
    /** Shortest text that reads back to the same double. */
    CsvWriter& field(double value);
    CsvWriter& field(long long value);
    CsvWriter& field(int value) { return field(static_cast<long long>(value)); }
    /** An empty field (a missing value: pandas reads NaN). */
    CsvWriter& empty();
    void endRow();

private:
    void separator();

    std::ostream& m_out;
    bool m_rowStarted = false;
};

} // namespace orrery::io
