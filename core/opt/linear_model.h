#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace orrery::opt {

/** No bound on that side of a column or row. */
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

enum class Sense { Minimize, Maximize };

/**
 * A linear (or mixed-integer linear) program as data: columns with bounds, an objective coefficient and
 * integrality; rows as sparse coefficients with bounds. Solvers take it as it is (LinearProgram for an LP
 * kept across solves, solveMilp for a MILP); building it touches no solver, so models can be checked in tests.
 */
class LinearModel
{
public:
    /** Adds a column; returns its index (0, 1, ...). */
    int addColumn(double lower, double upper, double objective = 0, bool integer = false);
    /** Adds a row lower <= sum coefficient x <= upper over the given columns; returns its index. */
    int addRow(const std::vector<int>& columns, const std::vector<double>& coefficients, double lower, double upper);
    /** Adds coefficient `value` of column `column` to row `row` (a column's entries may be given row by row). */
    void addEntry(int row, int column, double value);
    void setSense(Sense sense) { m_sense = sense; }

    int columns() const { return static_cast<int>(m_colLower.size()); }
    int rows() const { return static_cast<int>(m_rowLower.size()); }
    Sense sense() const { return m_sense; }
    bool hasIntegers() const;

    /**
     * The matrix column by column, each column's entries in ascending row order (what CLP and CBC load):
     * `start` has columns() + 1 offsets into `index` (rows) and `value`.
     */
    struct ColumnMajor
    {
        std::vector<int> start, index;
        std::vector<double> value;
    };
    ColumnMajor columnMajor() const;

    const std::vector<double>& columnLower() const { return m_colLower; }
    const std::vector<double>& columnUpper() const { return m_colUpper; }
    const std::vector<double>& objective() const { return m_objective; }
    const std::vector<char>& integer() const { return m_integer; }
    const std::vector<double>& rowLower() const { return m_rowLower; }
    const std::vector<double>& rowUpper() const { return m_rowUpper; }

private:
    struct Entry
    {
        int row, column;
        double value;
    };
    Sense m_sense = Sense::Minimize;
    std::vector<double> m_colLower, m_colUpper, m_objective;
    std::vector<char> m_integer;
    std::vector<double> m_rowLower, m_rowUpper;
    std::vector<Entry> m_entries;
};

} // namespace orrery::opt
