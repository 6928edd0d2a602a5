#pragma once

#include "opt/homogeneous_lp.h"
#include "sched/gavel_lp.h"

#include <functional>
#include <vector>

namespace orrery::sched {

/**
 * G of Gavel's allocation LP written as cvxpy hands it to ECOS (G x <= h, x the J x T allocation, row-major):
 * rows -x[j][t] <= 0 (J T of them), the capacities sum_j demand[j][t] x[j][t] <= capacity_t (T), the time
 * budgets sum_t x[j][t] <= 1 (J) and, when `floors`, the floors -sum_t rate[j][t] x[j][t] <= -floor_j (J;
 * max_sum_throughput's LP has none). The normal matrix G' diag(w) G is block-diagonal per job (its own cells,
 * budget and floor) plus one rank-one term per type (the capacity rows), so it is solved per job and through a
 * T x T Schur complement (Sherman-Morrison-Woodbury): O(J T^3) per factorisation instead of a dense (J T)^3.
 */
class AllocationOperator : public opt::LpOperator
{
public:
    /** Keeps a reference to `in`, which must outlive the operator. */
    AllocationOperator(const AllocationInput& in, bool floors);
    int columns() const override;
    int rows() const override;
    void multiply(const std::vector<double>& x, std::vector<double>& out) const override;
    void multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const override;
    void forEachEntry(const std::function<void(int, int, double)>& f) const override;
    bool factor(const std::vector<double>& w) override;
    void solve(std::vector<double>& v) const override;

private:
    const AllocationInput& m_in;
    std::size_t m_J, m_T;
    bool m_floors;
    std::vector<double> m_block, m_y, m_schur;
};

/**
 * min_total_duration's max-u LP for the interior-point method: AllocationOperator's rows (floors included) with one
 * more column v that every floor row scales, s_j v - sum_t rate[j][t] x[j][t] <= 0, and the rows -v <= 0 and
 * v <= vmax. Its normal matrix is AllocationOperator's bordered by v's row and column, solved through the scalar
 * Schur complement of v: one more solve with the inner factorisation per factorisation.
 */
class ScaledFloorOperator : public opt::LpOperator
{
public:
    /** `scale[j]` is s_j; `in` must outlive the operator. */
    ScaledFloorOperator(const AllocationInput& in, std::vector<double> scale);
    int columns() const override;
    int rows() const override;
    void multiply(const std::vector<double>& x, std::vector<double>& out) const override;
    void multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const override;
    void forEachEntry(const std::function<void(int, int, double)>& f) const override;
    bool factor(const std::vector<double>& w) override;
    void solve(std::vector<double>& v) const override;

private:
    AllocationOperator m_inner;
    std::vector<double> m_scale;
    std::size_t m_N, m_R0;        // inner columns and rows
    std::vector<double> m_b, m_y; // the border G0' W0 e and A^-1 of it
    double m_schur = 0;
    mutable std::vector<double> m_x, m_z;
};

} // namespace orrery::sched
