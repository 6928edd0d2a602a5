#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery::io {

/** One record of a delimited text file and the 1-based line it came from. */
struct TextRecord
{
    int line = 0;
    std::vector<std::string> fields;
};

/**
 * A delimited text file (CSV, TSV) read whole, tolerant of what real traces do:
 * LF, CRLF or CR-only line endings, blank lines (trailing or not), a missing
 * final newline, spaces around separators, double-quoted fields (no embedded
 * newlines), and a header that comes from a separate `.header` file. Columns
 * are looked up by header name, never by position.
 */
class TextTable
{
public:
    struct Options
    {
        char separator = ',';
        bool hasHeader = true;  ///< false: the first line is data (give the names with setHeader)
        bool trimFields = true; ///< strip spaces around each field (TSV commands keep inner spaces)
    };

    /** Splits `text`; `fileLabel` names the file in every error. */
    static TextTable parse(std::string_view text, std::string fileLabel, Options options);
    static TextTable parse(std::string_view text, std::string fileLabel)
    {
        return parse(text, std::move(fileLabel), Options{});
    }
    /** Reads `path`; errors name its base name. */
    static TextTable read(const std::string& path, Options options);
    static TextTable read(const std::string& path) { return read(path, Options{}); }

    const std::string& file() const { return m_file; }
    /** Column names, trimmed; empty names (a pandas index column) are kept as "". */
    const std::vector<std::string>& header() const { return m_header; }
    /** Line of the header (0 when it came from setHeader). */
    int headerLine() const { return m_headerLine; }
    const std::vector<TextRecord>& records() const { return m_records; }

    /** Replaces the column names (headerless tables: PAI's separate `.header` files). */
    void setHeader(std::vector<std::string> names);

    /** Index of a named column, or -1. Names compare exactly after trimming. */
    int column(std::string_view name) const;
    /** Index of a named column; throws `FILE:LINE: header: missing column "x" (columns: ...)`. */
    int requireColumn(std::string_view name) const;
    /** The first of `names` present, or -1 (for columns renamed between releases). */
    int anyColumn(std::initializer_list<std::string_view> names) const;

    /** A record's field; throws `FILE:LINE: name: missing value` when the row is too short. */
    const std::string& field(const TextRecord& record, int column) const;

private:
    std::string m_file;
    std::vector<std::string> m_header;
    int m_headerLine = 0;
    std::vector<TextRecord> m_records;
};

/** Calls `fn(lineNumber, lineText)` for every line; LF, CRLF and CR all end a line. */
template <class F> void forEachLine(std::string_view text, F&& fn)
{
    int number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = start;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r')
            ++end;
        ++number;
        fn(number, text.substr(start, end - start));
        if (end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n')
            ++end;
        start = end + 1;
    }
}

/**
 * Parses the fields of one line of a text trace; every failure is an
 * orrery::Error reading `FILE:LINE: field: problem`.
 */
class FieldParser
{
public:
    FieldParser(std::string file, int line) : m_file(std::move(file)), m_line(line) {}

    [[noreturn]] void fail(std::string_view field, const std::string& problem) const;

    long long integer(std::string_view field, std::string_view text) const;
    long long positiveInteger(std::string_view field, std::string_view text) const;
    long long nonNegativeInteger(std::string_view field, std::string_view text) const;
    double number(std::string_view field, std::string_view text) const;
    double positiveNumber(std::string_view field, std::string_view text) const;
    double nonNegativeNumber(std::string_view field, std::string_view text) const;
    /** Empty (or only spaces) is nullopt; otherwise like number(). */
    std::optional<double> optionalNumber(std::string_view field, std::string_view text) const;
    /** `YYYY-MM-DD HH:MM:SS` (naive, as the traces write it) to seconds since 1970-01-01 on that clock. */
    double dateTime(std::string_view field, std::string_view text) const;

    int line() const { return m_line; }
    const std::string& file() const { return m_file; }

private:
    std::string m_file;
    int m_line;
};

/** `YYYY-MM-DD HH:MM:SS` (or with a `T`), naive, to seconds since 1970-01-01 on the same clock; nullopt when malformed.
 */
std::optional<double> parseDateTime(std::string_view text);

/** `"abc"` with quotes, or `an empty field`: how a bad value is shown in an error. */
std::string describeField(std::string_view text);

} // namespace orrery::io
