#include "sched/gavel_lp.h"

#include "opt/homogeneous_lp.h"
#include "sched/alike_jobs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace orrery::sched {

namespace {

/**
 * In-place Cholesky of the n x n row-major SPD matrix at a (lower triangle); false when not positive definite.
 * `Size` is std::size_t, or a compile-time size for which the compiler unrolls the loops (same operations, same
 * order, so the same bits).
 */
template <class Size> bool choleskyOf(double* a, Size size)
{
    const std::size_t n = size;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k <= i; ++k) {
            double sum = a[i * n + k];
            for (std::size_t p = 0; p < k; ++p)
                sum -= a[i * n + p] * a[k * n + p];
            if (i == k) {
                if (!(sum > 0) || !std::isfinite(sum))
                    return false;
                a[i * n + i] = std::sqrt(sum);
            } else {
                a[i * n + k] = sum / a[k * n + k];
            }
        }
    }
    return true;
}

/**
 * v := (L L')^-1 v for the factor at l left by choleskyOf(). Always inlined: it runs once per class and solve, and as
 * a call it kept the per-class loops from holding their operands in registers.
 */
template <class Size> [[gnu::always_inline]] inline void choleskySolveOf(const double* l, Size size, double* v)
{
    const std::size_t n = size;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < i; ++p)
            v[i] -= l[i * n + p] * v[p];
        v[i] /= l[i * n + i];
    }
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t p = i + 1; p < n; ++p)
            v[i] -= l[p * n + i] * v[p];
        v[i] /= l[i * n + i];
    }
}

// Gavel's clusters have three GPU types: their 3 x 3 blocks get the unrolled forms.
using Three = std::integral_constant<std::size_t, 3>;

/** n * n, at compile time when n is known then. */
template <class Size> auto squared(Size n)
{
    if constexpr (std::is_same_v<Size, std::size_t>)
        return n * n;
    else
        return std::integral_constant<std::size_t, Size::value * Size::value>{};
}

/**
 * out[i] += perClass[c_j * width + i] for every job j in order (c_j = classOf[j]), i < width: the sums over jobs of
 * the whole LP, in its order, from the classes' terms. A compile-time width keeps them in registers.
 */
template <class Width>
void addOverJobs(Width width, const std::vector<int>& classOf, const double* perClass, double* out)
{
    const std::size_t W = width;
    if constexpr (std::is_same_v<Width, std::size_t>) {
        for (const int c : classOf)
            for (std::size_t i = 0; i < W; ++i)
                out[i] += perClass[static_cast<std::size_t>(c) * W + i];
    } else {
        std::array<double, Width::value> sum;
        std::copy(out, out + W, sum.begin());
        for (const int c : classOf)
            for (std::size_t i = 0; i < W; ++i)
                sum[i] += perClass[static_cast<std::size_t>(c) * W + i];
        std::copy(sum.begin(), sum.end(), out);
    }
}

/** Calls f with the number of types, a compile-time 3 for Gavel's clusters (loops unrolled, the same bits). */
template <class F> auto byTypes(std::size_t types, F&& f)
{
    return types == 3 ? f(Three{}) : f(types);
}

/**
 * G of Gavel's allocation LP written as cvxpy hands it to ECOS (G x <= h, x the J x T allocation, row-major):
 * rows -x[j][t] <= 0 (J T of them), the capacities sum_j demand[j][t] x[j][t] <= capacity_t (T), the time
 * budgets sum_t x[j][t] <= 1 (J) and, when the LP has them, the floors -sum_t rate[j][t] x[j][t] <= -floor_j (J;
 * max_sum_throughput's LP has none). The normal matrix
 * G' diag(w) G is block-diagonal per job (its own cells, budget and floor) plus one rank-one term per type (the
 * capacity rows), so it is solved per job and through a T x T Schur complement (Sherman-Morrison-Woodbury):
 * O(J T^3) per factorisation instead of a dense (J T)^3.
 *
 * On classes of alike jobs (`classOf`, per job of the LP; `in` then holds one job per class, alike_jobs.h) the
 * operator works on one row of cells per class, since the method's iterates are equal on alike jobs
 * (ecosMaxSumPoint). Every sum over jobs (the capacity rows, the Schur complement, its right-hand side) still runs
 * over all jobs in their order, each adding its class's term, and LpOperator::expandedRows/Columns list the whole
 * LP's rows in order for the method's norms: the arithmetic, to the last bit, is the whole LP's.
 */
class AllocationOperator : public opt::LpOperator
{
public:
    /** `classOf` empty: each job of `in` is its own class. */
    AllocationOperator(const AllocationInput& in, bool floors, std::vector<int> classOf = {})
        : m_in(in), m_J(static_cast<std::size_t>(in.jobs)), m_T(static_cast<std::size_t>(in.types)), m_floors(floors),
          m_classOf(std::move(classOf)), m_use(in.demand.begin(), in.demand.end())
    {
        if (m_classOf.empty())
            for (std::size_t j = 0; j < m_J; ++j)
                m_classOf.push_back(static_cast<int>(j));
    }
    int columns() const override { return static_cast<int>(m_J * m_T); }
    int rows() const override { return static_cast<int>(m_J * m_T + m_T + (m_floors ? 2 : 1) * m_J); }

    void multiply(const std::vector<double>& x, std::vector<double>& out) const override
    {
        out.resize(static_cast<std::size_t>(rows())); // every entry is set below
        byTypes(m_T, [&](auto types) {
            const std::size_t T = types, N = m_J * T;
            for (std::size_t j = 0; j < m_J; ++j) {
                // Sums from 0 in the order of the cells, as the whole LP's accumulation into `out` adds them.
                double budget = 0, floor = 0;
                for (std::size_t t = 0; t < T; ++t) {
                    const std::size_t k = j * T + t;
                    out[k] = -x[k];
                    budget += x[k];
                    if (m_floors)
                        floor -= m_in.rate[k] * x[k];
                }
                out[N + T + j] = budget;
                if (m_floors)
                    out[N + T + m_J + j] = floor;
            }
            m_term.resize(N);
            for (std::size_t k = 0; k < N; ++k)
                m_term[k] = m_use[k] * x[k];
            std::fill(out.begin() + static_cast<std::ptrdiff_t>(N), out.begin() + static_cast<std::ptrdiff_t>(N + T),
                      0.0);
            addOverJobs(types, m_classOf, m_term.data(), out.data() + N);
        });
    }

    void multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const override
    {
        out.resize(m_J * m_T); // every entry is set below
        byTypes(m_T, [&](auto types) {
            const std::size_t T = types, N = m_J * T;
            for (std::size_t j = 0; j < m_J; ++j)
                for (std::size_t t = 0; t < T; ++t) {
                    const std::size_t k = j * T + t;
                    out[k] = -z[k] + m_use[k] * z[N + t] + z[N + T + j] -
                             (m_floors ? m_in.rate[k] * z[N + T + m_J + j] : 0.0);
                }
        });
    }

    void forEachEntry(const std::function<void(int, int, double)>& f) const override
    {
        const std::size_t N = m_J * m_T;
        for (std::size_t j = 0; j < m_J; ++j)
            for (std::size_t t = 0; t < m_T; ++t) {
                const std::size_t k = j * m_T + t;
                const int col = static_cast<int>(k);
                f(static_cast<int>(k), col, -1.0);
                if (m_in.demand[k] != 0)
                    f(static_cast<int>(N + t), col, m_in.demand[k]);
                f(static_cast<int>(N + m_T + j), col, 1.0);
                if (m_floors && m_in.rate[k] != 0)
                    f(static_cast<int>(N + m_T + m_J + j), col, -m_in.rate[k]);
            }
    }

    std::vector<int> expandedRows() const override
    {
        if (m_classOf.size() == m_J)
            return {};
        // Cells job by job, the capacities, the budgets, the floors: each job's through its class's.
        std::vector<int> rows;
        const std::size_t N = m_J * m_T;
        for (const int j : m_classOf)
            for (std::size_t t = 0; t < m_T; ++t)
                rows.push_back(static_cast<int>(static_cast<std::size_t>(j) * m_T + t));
        for (std::size_t t = 0; t < m_T; ++t)
            rows.push_back(static_cast<int>(N + t));
        for (int block = 0; block < (m_floors ? 2 : 1); ++block)
            for (const int j : m_classOf)
                rows.push_back(static_cast<int>(N + m_T + static_cast<std::size_t>(block) * m_J) + j);
        return rows;
    }

    std::vector<int> expandedColumns() const override
    {
        if (m_classOf.size() == m_J)
            return {};
        std::vector<int> columns;
        for (const int j : m_classOf)
            for (std::size_t t = 0; t < m_T; ++t)
                columns.push_back(static_cast<int>(static_cast<std::size_t>(j) * m_T + t));
        return columns;
    }

    bool factor(const std::vector<double>& w) override
    {
        return byTypes(m_T, [&](auto types) {
            const std::size_t T = types, N = m_J * T;
            // B_j = diag(w_cells) + w_budget 1 1' + w_floor r r', factored per job.
            m_block.resize(m_J * T * T); // every entry is set below
            for (std::size_t j = 0; j < m_J; ++j) {
                double* b = m_block.data() + j * T * T;
                const double wb = w[N + T + j], wf = m_floors ? w[N + T + m_J + j] : 0.0;
                for (std::size_t p = 0; p < T; ++p)
                    for (std::size_t q = 0; q < T; ++q)
                        b[p * T + q] =
                            (p == q ? w[j * T + p] : 0.0) + wb + wf * m_in.rate[j * T + p] * m_in.rate[j * T + q];
                if (!choleskyOf(b, types))
                    return false;
            }
            // Y = B^-1 U (U: the capacity rows' coefficients), S = Gamma^-1 + U' B^-1 U.
            m_y.resize(N * T); // every entry is set below
            m_col.resize(T);
            double* col = m_col.data();
            for (std::size_t j = 0; j < m_J; ++j)
                for (std::size_t t = 0; t < T; ++t) {
                    std::fill(col, col + T, 0.0);
                    col[t] = m_use[j * T + t];
                    choleskySolveOf(m_block.data() + j * T * T, types, col);
                    for (std::size_t a = 0; a < T; ++a)
                        m_y[(j * T + a) * T + t] = col[a];
                }
            m_schur.assign(T * T, 0.0);
            for (std::size_t t = 0; t < T; ++t)
                m_schur[t * T + t] = 1 / w[N + t];
            m_term.resize(N * T);
            for (std::size_t k = 0; k < N; ++k)
                for (std::size_t t = 0; t < T; ++t)
                    m_term[k * T + t] = m_use[k] * m_y[k * T + t];
            addOverJobs(squared(types), m_classOf, m_term.data(), m_schur.data());
            return choleskyOf(m_schur.data(), types);
        });
    }

    void solve(std::vector<double>& v) const override
    {
        byTypes(m_T, [&](auto types) {
            const std::size_t T = types;
            for (std::size_t j = 0; j < m_J; ++j)
                choleskySolveOf(m_block.data() + j * T * T, types, v.data() + j * T);
            m_q.assign(T, 0.0);
            double* q = m_q.data();
            m_term.resize(m_J * T);
            for (std::size_t k = 0; k < m_J * T; ++k)
                m_term[k] = m_use[k] * v[k];
            addOverJobs(types, m_classOf, m_term.data(), q);
            choleskySolveOf(m_schur.data(), types, q);
            for (std::size_t k = 0; k < m_J * T; ++k)
                for (std::size_t t = 0; t < T; ++t)
                    v[k] -= m_y[k * T + t] * q[t];
        });
    }

private:
    const AllocationInput& m_in;
    std::size_t m_J, m_T;
    bool m_floors;
    std::vector<int> m_classOf; // per job of the whole LP: its row of cells here
    std::vector<double> m_use;  // per cell: its demand (a capacity row's coefficient)
    std::vector<double> m_block, m_y, m_schur;
    mutable std::vector<double> m_q, m_term; // work areas: solve()'s right-hand side, the terms of sums over jobs
    std::vector<double> m_col;
};

/** Gavel clips the solver's allocation to [0, 1]. */
std::vector<double> clipped(std::vector<double> x)
{
    for (double& v : x)
        v = std::min(1.0, std::max(0.0, v));
    return x;
}

// ECOS' default number of refinement steps (include/ecos.h, NITREF).
constexpr int kEcosRefinementSteps = 9;

} // namespace

std::vector<double> ecosFeasiblePoint(const AllocationInput& in, const std::vector<double>& floor)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    if (floor.size() != J || in.rate.size() != J * T || in.demand.size() != J * T || in.capacity.size() != T)
        throw std::invalid_argument("ecosFeasiblePoint: floors per job, rate and demand jobs x types");
    AllocationOperator g(in, true);
    const std::size_t N = J * T;
    std::vector<double> h(N + T + 2 * J, 0.0);
    for (std::size_t t = 0; t < T; ++t)
        h[N + t] = in.capacity[t];
    for (std::size_t j = 0; j < J; ++j) {
        h[N + T + j] = 1;
        h[N + T + J + j] = -floor[j];
    }
    // Gavel's objective is the constant Maximize(1): c = 0, a feasibility problem.
    const opt::HsdResult r = opt::solveHomogeneous(g, std::vector<double>(N, 0.0), h);
    if (r.status != opt::HsdStatus::Optimal)
        return {};
    return clipped(r.x);
}

std::vector<double> ecosMaxSumPoint(const AllocationInput& in, bool mergeAlike)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    if (in.rate.size() != J * T || in.demand.size() != J * T || in.capacity.size() != T)
        throw std::invalid_argument("ecosMaxSumPoint: rate and demand jobs x types");
    // Alike jobs (one demand and rate row) are identical columns of the LP: from ECOS' starting point, equal on
    // them, every step keeps them equal to the bit (each job's arithmetic is the same), so the method runs on one
    // row of cells per class (AllocationOperator, sums still over every job) and each job takes its class's point.
    // A trace has a few dozen job kinds: 2-3x fewer rows (docs/performance.md, "Sixth pass").
    const AlikeJobs classes = mergeAlike ? alikeJobs(in.jobs, in.types, in.demand, in.rate) : eachJobAlone(in.jobs);
    const std::size_t K = classes.count();
    AllocationInput reduced{static_cast<int>(K), in.types, std::vector<double>(K * T), std::vector<int>(K * T),
                            in.capacity};
    for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t t = 0; t < T; ++t) {
            reduced.rate[k * T + t] = in.rate[classes.first[k] * T + t];
            reduced.demand[k * T + t] = in.demand[classes.first[k] * T + t];
        }
    }
    AllocationOperator g(reduced, false, classes.classOf);
    const std::size_t N = K * T;
    std::vector<double> h(N + T + K, 0.0);
    for (std::size_t t = 0; t < T; ++t)
        h[N + t] = in.capacity[t];
    for (std::size_t k = 0; k < K; ++k)
        h[N + T + k] = 1;
    // cvxpy minimises -objective: c = -rate.
    std::vector<double> c(N);
    for (std::size_t k = 0; k < N; ++k)
        c[k] = -reduced.rate[k];
    opt::HsdOptions options;
    options.refinementSteps = kEcosRefinementSteps;
    const opt::HsdResult r = opt::solveHomogeneous(g, c, h, options);
    // cvxpy hands Gavel ECOS' "close to optimal" point too (status optimal_inaccurate; Gavel warns and uses it).
    if (r.status != opt::HsdStatus::Optimal && r.status != opt::HsdStatus::OptimalInaccurate)
        return {};
    const std::vector<double> y = clipped(r.x);
    std::vector<double> x(J * T);
    for (std::size_t j = 0; j < J; ++j)
        for (std::size_t t = 0; t < T; ++t)
            x[j * T + t] = y[static_cast<std::size_t>(classes.classOf[j]) * T + t];
    return x;
}

} // namespace orrery::sched
