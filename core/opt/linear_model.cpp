#include "opt/linear_model.h"

#include <algorithm>
#include <stdexcept>

namespace orrery::opt {

int LinearModel::addColumn(double lower, double upper, double objective, bool integer)
{
    m_colLower.push_back(lower);
    m_colUpper.push_back(upper);
    m_objective.push_back(objective);
    m_integer.push_back(integer ? 1 : 0);
    return columns() - 1;
}

int LinearModel::addRow(const std::vector<int>& columns, const std::vector<double>& coefficients, double lower,
                        double upper)
{
    if (columns.size() != coefficients.size())
        throw std::invalid_argument("LinearModel::addRow: as many coefficients as columns are needed");
    m_rowLower.push_back(lower);
    m_rowUpper.push_back(upper);
    const int row = rows() - 1;
    for (std::size_t k = 0; k < columns.size(); ++k)
        addEntry(row, columns[k], coefficients[k]);
    return row;
}

void LinearModel::addEntry(int row, int column, double value)
{
    if (row < 0 || row >= rows() || column < 0 || column >= columns())
        throw std::out_of_range("LinearModel::addEntry: no such row or column");
    m_entries.push_back({row, column, value});
}

bool LinearModel::hasIntegers() const
{
    return std::find(m_integer.begin(), m_integer.end(), 1) != m_integer.end();
}

LinearModel::ColumnMajor LinearModel::columnMajor() const
{
    // Stable by (column, row): a column's entries in row order whatever order they were added in, so a model built
    // row by row loads exactly as one built column by column.
    std::vector<Entry> sorted = m_entries;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
        return a.column != b.column ? a.column < b.column : a.row < b.row;
    });
    ColumnMajor out;
    out.start.assign(static_cast<std::size_t>(columns()) + 1, 0);
    out.index.reserve(sorted.size());
    out.value.reserve(sorted.size());
    for (const Entry& e : sorted) {
        ++out.start[static_cast<std::size_t>(e.column) + 1];
        out.index.push_back(e.row);
        out.value.push_back(e.value);
    }
    for (std::size_t c = 1; c < out.start.size(); ++c)
        out.start[c] += out.start[c - 1];
    return out;
}

} // namespace orrery::opt
