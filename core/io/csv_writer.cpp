#include "io/csv_writer.h"

#include <fmt/format.h>

namespace orrery::io {

void CsvWriter::separator()
{
    if (m_rowStarted)
        m_out.put(',');
    m_rowStarted = true;
}

CsvWriter& CsvWriter::field(std::string_view text)
{
    separator();
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
        m_out << text;
        return *this;
    }
    m_out.put('"');
    for (const char c : text) {
        if (c == '"')
            m_out.put('"');
        m_out.put(c);
    }
    m_out.put('"');
    return *this;
}

CsvWriter& CsvWriter::field(double value)
{
    separator();
    m_out << fmt::format("{}", value);
    return *this;
}

CsvWriter& CsvWriter::field(long long value)
{
    separator();
    m_out << value;
    return *this;
}

CsvWriter& CsvWriter::empty()
{
    separator();
    return *this;
}

void CsvWriter::endRow()
{
    m_out << "\r\n";
    m_rowStarted = false;
}

} // namespace orrery::io
