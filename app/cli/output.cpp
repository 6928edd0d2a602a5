#include "cli.h"

#include <algorithm>
#include <cctype>
#include <iostream>

namespace orrery::cli {

namespace {
std::vector<std::pair<int, RegisterFn>>& registry()
{
    static std::vector<std::pair<int, RegisterFn>> r;
    return r;
}
} // namespace

CommandRegistration::CommandRegistration(int order, RegisterFn fn)
{
    registry().emplace_back(order, fn);
}

void registerAllCommands(CLI::App& app)
{
    auto r = registry();
    std::stable_sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [order, fn] : r)
        fn(app);
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
