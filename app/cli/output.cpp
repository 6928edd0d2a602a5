#include "cli.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <string_view>

namespace orrery::cli {

namespace {

struct Registration
{
    int order;
    RegisterFn fn;
    std::vector<std::string_view> names;
};

std::vector<Registration>& registry()
{
    static std::vector<Registration> r;
    return r;
}

} // namespace

CommandRegistration::CommandRegistration(int order, RegisterFn fn, std::initializer_list<const char*> names)
{
    registry().push_back({order, fn, std::vector<std::string_view>(names.begin(), names.end())});
}

void registerCommands(CLI::App& app, int argc, const char* const* argv)
{
    auto r = registry();
    std::stable_sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "--version")
            break; // the main program's help lists every command
        for (const auto& entry : r)
            if (std::find(entry.names.begin(), entry.names.end(), arg) != entry.names.end()) {
                entry.fn(app);
                return;
            }
    }
    for (const auto& entry : r)
        entry.fn(app);
}

void printJson(const nlohmann::json& doc)
{
    std::cout << doc.dump(2) << '\n';
}

Table::Table(std::vector<std::string> header) : m_header(std::move(header))
{}

void Table::add(std::vector<std::string> row)
{
    row.resize(m_header.size());
    m_rows.push_back(std::move(row));
}

static bool numeric(const std::string& s)
{
    if (s.empty())
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '%' || c == ',' ||
               c == 'e' || c == '+';
    });
}

std::string Table::render() const
{
    std::vector<std::size_t> width(m_header.size());
    for (std::size_t c = 0; c < m_header.size(); ++c) {
        width[c] = m_header[c].size();
        for (const auto& r : m_rows)
            width[c] = std::max(width[c], r[c].size());
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& r, bool header) {
        for (std::size_t c = 0; c < r.size(); ++c) {
            const std::size_t pad = width[c] - r[c].size();
            const bool right = !header && numeric(r[c]);
            if (right)
                out.append(pad, ' ');
            out += r[c];
            if (c + 1 < r.size()) {
                if (!right)
                    out.append(pad, ' ');
                out += "  ";
            }
        }
        out += '\n';
    };
    line(m_header, true);
    std::size_t total = 0;
    for (auto w : width)
        total += w + 2;
    out.append(total > 2 ? total - 2 : 0, '-');
    out += '\n';
    for (const auto& r : m_rows)
        line(r, false);
    return out;
}

} // namespace orrery::cli
