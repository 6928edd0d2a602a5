#include "io/text_table.h"

#include "io/error.h"
#include "io/limits.h"
#include "util/text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <type_traits>

namespace orrery::io {

namespace {

bool isBlank(std::string_view s)
{
    for (char c : s)
        if (c != ' ' && c != '\t')
            return false;
    return true;
}

std::string_view trimView(std::string_view s)
{
    std::size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t'))
        ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
        --e;
    return s.substr(b, e - b);
}

// One line into fields. A field that starts (after spaces) with a double quote
// runs to the closing quote; `""` inside it is a literal quote.
std::vector<std::string> splitFields(std::string_view line, char sep, bool trim)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    for (;;) {
        std::size_t j = i;
        while (j < line.size() && line[j] == ' ' && sep != ' ')
            ++j;
        if (j < line.size() && line[j] == '"') {
            std::string value;
            std::size_t k = j + 1;
            for (; k < line.size(); ++k) {
                if (line[k] == '"') {
                    if (k + 1 < line.size() && line[k + 1] == '"') {
                        value += '"';
                        ++k;
                        continue;
                    }
                    break;
                }
                value += line[k];
            }
            // Anything between the closing quote and the separator is dropped.
            std::size_t next = line.find(sep, k < line.size() ? k : line.size());
            out.push_back(std::move(value));
            if (next == std::string_view::npos)
                break;
            i = next + 1;
            continue;
        }
        const std::size_t next = line.find(sep, i);
        const std::string_view raw = line.substr(i, next == std::string_view::npos ? std::string_view::npos : next - i);
        out.emplace_back(trim ? trimView(raw) : raw);
        if (next == std::string_view::npos)
            break;
        i = next + 1;
    }
    return out;
}

} // namespace

TextTable TextTable::parse(std::string_view text, std::string fileLabel, Options options)
{
    TextTable t;
    t.m_file = std::move(fileLabel);
    // A UTF-8 byte-order mark would otherwise become part of the first column name.
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    bool wantHeader = options.hasHeader;
    forEachLine(text, [&](int number, std::string_view line) {
        if (isBlank(line))
            return;
        auto fields = splitFields(line, options.separator, options.trimFields);
        // Checked here, once for every reader: a Latin-1 byte would otherwise surface as a JSON
        // type error, with no line, when the imported scenario is written.
        if (util::invalidUtf8At(line) != std::string_view::npos)
            for (std::size_t i = 0; i < fields.size(); ++i)
                if (const auto bad = util::invalidUtf8At(fields[i]); bad != std::string_view::npos) {
                    const std::string name =
                        wantHeader || i >= t.m_header.size() ? fmt::format("column {}", i + 1) : t.m_header[i];
                    throw Error(t.m_file, fmt::format("{}: {}", number, name),
                                fmt::format("invalid UTF-8 (byte 0x{:02X} at byte {} of the field): text files "
                                            "must be UTF-8 (was it saved as Latin-1?)",
                                            static_cast<unsigned char>(fields[i][bad]), bad + 1));
                }
        if (wantHeader) {
            for (auto& f : fields)
                f = util::trim(f);
            t.m_header = std::move(fields);
            t.m_headerLine = number;
            wantHeader = false;
            return;
        }
        if (static_cast<long long>(t.m_records.size()) >= limits::kMaxTraceRows)
            throw Error(
                t.m_file, std::to_string(number),
                fmt::format("more than {} rows: a trace file may hold at most that many", limits::kMaxTraceRows));
        t.m_records.push_back(TextRecord{number, std::move(fields)});
    });
    if (wantHeader)
        throw Error(t.m_file, "", "empty file: expected a header line");
    return t;
}

TextTable TextTable::read(const std::string& path, Options options)
{
    return parse(util::readFile(path), util::baseName(path), options);
}

void TextTable::setHeader(std::vector<std::string> names)
{
    for (auto& n : names)
        n = util::trim(n);
    m_header = std::move(names);
    m_headerLine = 0;
}

int TextTable::column(std::string_view name) const
{
    for (std::size_t i = 0; i < m_header.size(); ++i)
        if (m_header[i] == name)
            return static_cast<int>(i);
    return -1;
}

int TextTable::anyColumn(std::initializer_list<std::string_view> names) const
{
    for (auto n : names)
        if (int c = column(n); c >= 0)
            return c;
    return -1;
}

int TextTable::requireColumn(std::string_view name) const
{
    const int c = column(name);
    if (c >= 0)
        return c;
    std::string names;
    for (const auto& h : m_header)
        names += (names.empty() ? "" : ", ") + (h.empty() ? std::string("(unnamed)") : h);
    throw Error(m_file, std::to_string(m_headerLine) + ": header",
                fmt::format("missing column \"{}\" (columns: {})", name, names));
}

const std::string& TextTable::field(const TextRecord& record, int column) const
{
    const auto c = static_cast<std::size_t>(column);
    if (c >= record.fields.size())
        throw Error(
            m_file, std::to_string(record.line) + ": " + m_header.at(c),
            fmt::format("missing value (the row has {} fields, the header {})", record.fields.size(), m_header.size()));
    return record.fields[c];
}

std::string describeField(std::string_view text)
{
    if (text.empty())
        return "an empty field";
    std::string shown(util::utf8Prefix(text, 60));
    if (text.size() > 60)
        shown += "...";
    return "\"" + shown + "\"";
}

void FieldParser::fail(std::string_view field, const std::string& problem) const
{
    throw Error(m_file, std::to_string(m_line) + ": " + std::string(field), problem);
}

namespace {

// Whole-field numbers only: "12abc", "" and "1e400" are errors, a leading '+' is accepted.
template <class T> bool parseValue(std::string_view text, T& value)
{
    const std::string_view t = trimView(text);
    if (t.empty())
        return false;
    const char* end = t.data() + t.size();
    const auto r = std::from_chars(t.data() + (t.front() == '+' && t.size() > 1), end, value);
    if (r.ec != std::errc() || r.ptr != end)
        return false;
    if constexpr (std::is_floating_point_v<T>)
        return std::isfinite(value);
    return true;
}

} // namespace

long long FieldParser::integer(std::string_view field, std::string_view text) const
{
    long long v = 0;
    if (!parseValue(text, v))
        fail(field, "expected an integer, got " + describeField(text));
    return v;
}

long long FieldParser::positiveInteger(std::string_view field, std::string_view text) const
{
    long long v = 0;
    if (!parseValue(text, v) || v < 1)
        fail(field, "expected a positive integer, got " + describeField(text));
    return v;
}

long long FieldParser::nonNegativeInteger(std::string_view field, std::string_view text) const
{
    long long v = 0;
    if (!parseValue(text, v) || v < 0)
        fail(field, "expected a non-negative integer, got " + describeField(text));
    return v;
}

double FieldParser::number(std::string_view field, std::string_view text) const
{
    double v = 0;
    if (!parseValue(text, v))
        fail(field, "expected a number, got " + describeField(text));
    return v;
}

double FieldParser::positiveNumber(std::string_view field, std::string_view text) const
{
    double v = 0;
    if (!parseValue(text, v) || !(v > 0))
        fail(field, "expected a positive number, got " + describeField(text));
    return v;
}

double FieldParser::nonNegativeNumber(std::string_view field, std::string_view text) const
{
    double v = 0;
    if (!parseValue(text, v) || v < 0)
        fail(field, "expected a non-negative number, got " + describeField(text));
    return v;
}

std::optional<double> FieldParser::optionalNumber(std::string_view field, std::string_view text) const
{
    if (trimView(text).empty())
        return std::nullopt;
    return number(field, text);
}

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
long long daysFromCivil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out)
{
    if (pos + n > s.size())
        return false;
    out = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

} // namespace

std::optional<double> parseDateTime(std::string_view text)
{
    const std::string_view t = trimView(text);
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    const bool shape =
        t.size() == 19 && t[4] == '-' && t[7] == '-' && (t[10] == ' ' || t[10] == 'T') && t[13] == ':' && t[16] == ':';
    if (!shape || !digits(t, 0, 4, y) || !digits(t, 5, 2, mo) || !digits(t, 8, 2, d) || !digits(t, 11, 2, h) ||
        !digits(t, 14, 2, mi) || !digits(t, 17, 2, s) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        s > 60)
        return std::nullopt;
    // Year 0000 does not exist in the traces' calendar, and 2020-02-31 is not a day.
    static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1 || d > kDaysIn[mo - 1] + (mo == 2 && leap ? 1 : 0))
        return std::nullopt;
    const long long days = daysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    return static_cast<double>(days * 86400 + h * 3600 + mi * 60 + s);
}

double FieldParser::dateTime(std::string_view field, std::string_view text) const
{
    const auto v = parseDateTime(text);
    if (!v)
        fail(field, "expected a date and time YYYY-MM-DD HH:MM:SS, got " + describeField(text));
    return *v;
}

} // namespace orrery::io
