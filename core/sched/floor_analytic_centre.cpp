#include "sched/floor_analytic_centre.h"

#include "opt/small_cholesky.h"
#include "opt/solver_clock.h"
#include "sched/floor_greedy_point.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace orrery::sched {

namespace {

// Newton steps end when the decrement (the step's length in the barrier's own metric) is below this: the point is
// then within about that distance of the centre in that metric (the decrement falls quadratically there: one more
// step would take it to about 1e-18).
constexpr double kDecrement = 1e-9;
constexpr int kMaxSteps = 200;
constexpr double kQuadratic = 0.25; // the Newton decrement below which full steps converge quadratically
constexpr int kMaxHalvings = 60;
// The greedy start is built on capacities this much smaller, so that the interior point mixed into it has GPUs
// left to take on every type; the second where a loaded cluster leaves the greedy order no room for the first.
constexpr double kStartCapacityRoom[] = {1e-3, 1e-6};
constexpr double kStartMargin = 1e-9;

class Centre
{
public:
    Centre(const AllocationInput& in, const std::vector<double>& floor)
        : m_in(in), m_floor(floor), m_J(static_cast<std::size_t>(in.jobs)), m_T(static_cast<std::size_t>(in.types)),
          m_N(m_J * m_T)
    {}

    /** The slack of every finite bound at x, into s; false when x is not strictly inside all of them. */
    bool slacks(const std::vector<double>& x, std::vector<double>& s) const
    {
        s.clear();
        std::vector<double>& used = m_used;
        used.assign(m_T, 0.0);
        for (std::size_t j = 0; j < m_J; ++j) {
            double time = 0, thr = 0;
            for (std::size_t t = 0; t < m_T; ++t) {
                const std::size_t k = j * m_T + t;
                s.push_back(x[k]);
                s.push_back(1 - x[k]);
                time += x[k];
                thr += m_in.rate[k] * x[k];
                used[t] += m_in.demand[k] * x[k];
            }
            s.push_back(1 - time);
            if (hasFloor(j))
                s.push_back(thr - m_floor[j]);
        }
        for (std::size_t t = 0; t < m_T; ++t)
            s.push_back(m_in.capacity[t] - used[t]);
        return std::all_of(s.begin(), s.end(), [](double v) { return v > 0; });
    }

    /** The Newton step at x (strictly feasible) into dx; its decrement squared, or NaN when the system is singular. */
    double newtonStep(const std::vector<double>& x, std::vector<double>& dx)
    {
        const std::size_t T = m_T;
        std::vector<double> capSlack(T);
        for (std::size_t t = 0; t < T; ++t) {
            double used = 0;
            for (std::size_t j = 0; j < m_J; ++j)
                used += m_in.demand[j * T + t] * x[j * T + t];
            capSlack[t] = m_in.capacity[t] - used;
        }
        m_grad.resize(m_N);
        m_block.resize(m_J * T * T);
        for (std::size_t j = 0; j < m_J; ++j) {
            double time = 0, thr = 0;
            for (std::size_t t = 0; t < T; ++t) {
                time += x[j * T + t];
                thr += m_in.rate[j * T + t] * x[j * T + t];
            }
            const double sb = 1 - time;
            const double sf = hasFloor(j) ? thr - m_floor[j] : std::numeric_limits<double>::infinity();
            double* b = m_block.data() + j * T * T;
            for (std::size_t p = 0; p < T; ++p) {
                const std::size_t k = j * T + p;
                const double lo = x[k], up = 1 - x[k];
                m_grad[k] = 1 / lo - 1 / up - 1 / sb - m_in.demand[k] / capSlack[p] + m_in.rate[k] / sf;
                for (std::size_t q = 0; q < T; ++q)
                    b[p * T + q] = (p == q ? 1 / (lo * lo) + 1 / (up * up) : 0.0) + 1 / (sb * sb) +
                                   m_in.rate[k] * m_in.rate[j * T + q] / (sf * sf);
            }
            if (!opt::choleskyFactor(b, T))
                return std::nan("");
        }
        // Woodbury on the capacity rows: Y_j = B_j^-1 U_j, S = diag(slack^2) + sum_j U_j' Y_j.
        m_y.resize(m_N * T);
        m_schur.assign(T * T, 0.0);
        for (std::size_t t = 0; t < T; ++t)
            m_schur[t * T + t] = capSlack[t] * capSlack[t];
        std::vector<double>& col = m_col;
        col.resize(T);
        for (std::size_t j = 0; j < m_J; ++j)
            for (std::size_t t = 0; t < T; ++t) {
                std::fill(col.begin(), col.end(), 0.0);
                col[t] = m_in.demand[j * T + t];
                opt::choleskySolve(m_block.data() + j * T * T, T, col.data());
                for (std::size_t a = 0; a < T; ++a) {
                    m_y[(j * T + a) * T + t] = col[a];
                    m_schur[a * T + t] += m_in.demand[j * T + a] * col[a];
                }
            }
        if (!opt::choleskyFactor(m_schur.data(), T))
            return std::nan("");
        dx = m_grad;
        for (std::size_t j = 0; j < m_J; ++j)
            opt::choleskySolve(m_block.data() + j * T * T, T, dx.data() + j * T);
        std::vector<double>& q = m_q;
        q.assign(T, 0.0);
        for (std::size_t j = 0; j < m_J; ++j)
            for (std::size_t t = 0; t < T; ++t)
                q[t] += m_in.demand[j * T + t] * dx[j * T + t];
        opt::choleskySolve(m_schur.data(), T, q.data());
        for (std::size_t k = 0; k < m_N; ++k)
            for (std::size_t t = 0; t < T; ++t)
                dx[k] -= m_y[k * T + t] * q[t];
        double squared = 0;
        for (std::size_t k = 0; k < m_N; ++k)
            squared += m_grad[k] * dx[k];
        return squared;
    }

    bool hasFloor(std::size_t j) const { return std::isfinite(m_floor[j]); }

private:
    const AllocationInput& m_in;
    const std::vector<double>& m_floor;
    std::size_t m_J, m_T, m_N;
    std::vector<double> m_grad, m_block, m_y, m_schur, m_col, m_q;
    mutable std::vector<double> m_used;
};

/**
 * The barrier's gain from slacks `from` to `to`, sum_i log(to_i / from_i), with the ratios multiplied in runs of 8
 * before each logarithm: the logarithms were 40% of the method's cost. A run's product stays within a double's range
 * for ratios within 1e-38..1e38; beyond, an overflow reads as a gain (the barrier did rise) and an underflow as a
 * loss (the step is halved).
 */
double logRatioSum(const std::vector<double>& from, const std::vector<double>& to)
{
    double sum = 0, product = 1;
    for (std::size_t i = 0; i < from.size(); ++i) {
        product *= to[i] / from[i];
        if (i % 8 == 7) {
            sum += std::log(product);
            product = 1;
        }
    }
    return sum + std::log(product);
}

/**
 * A strictly feasible point, as far inside as is cheap: the greedy point on a little less (`room`) than every
 * type's GPUs; then each job given an even part of half the GPUs each type has left, within half of its own time left
 * (the floors, met by the greedy point alone, gain room); then each job's row mixed with a small even share of every
 * type (paid for by the other half of those GPUs), in a proportion that keeps half of its room above the floor.
 * Every cell ends strictly inside its bounds, every row strictly inside its own.
 */
std::vector<double> interiorStart(const AllocationInput& in, const std::vector<double>& floor, double room)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    std::vector<double> x = greedyFloorPoint(in, floor, kStartMargin, 1 - room);
    if (x.empty())
        return {};
    std::vector<double> extra(T), spread(T);
    for (std::size_t t = 0; t < T; ++t) {
        double demand = 0, used = 0;
        for (std::size_t j = 0; j < J; ++j) {
            demand += in.demand[j * T + t];
            used += in.demand[j * T + t] * x[j * T + t];
        }
        const double left = in.capacity[t] - used;
        if (!(left > 0))
            return {};
        extra[t] = demand > 0 ? left / (2 * demand) : 1.0;
        spread[t] = std::min(0.5 / static_cast<double>(T), demand > 0 ? left / (4 * demand) : 1.0);
    }
    for (std::size_t j = 0; j < J; ++j) {
        double time = 0;
        for (std::size_t t = 0; t < T; ++t)
            time += x[j * T + t];
        const double each = (1 - time) / (2 * static_cast<double>(T));
        double thr = 0;
        for (std::size_t t = 0; t < T; ++t) {
            if (each > 0)
                x[j * T + t] += std::min(extra[t], each);
            thr += in.rate[j * T + t] * x[j * T + t];
        }
        // (1 - mix) thr >= (thr + floor) / 2 > floor.
        const double mix = floor[j] > 0 ? std::min(0.5, (thr - floor[j]) / (2 * thr)) : 0.5;
        for (std::size_t t = 0; t < T; ++t)
            x[j * T + t] = (1 - mix) * x[j * T + t] + mix * spread[t];
    }
    return x;
}

} // namespace

std::vector<double> floorAnalyticCentre(const AllocationInput& in, const std::vector<double>& floor)
{
    const opt::SolverTimer timer;
    std::vector<double> x;
    for (const double room : kStartCapacityRoom)
        if (x = interiorStart(in, floor, room); !x.empty())
            break;
    if (x.empty())
        return {};
    Centre centre(in, floor);
    std::vector<double> slack, nextSlack;
    if (!centre.slacks(x, slack))
        return {};
    std::vector<double> dx, next(x.size());
    for (int step = 0; step < kMaxSteps; ++step) {
        const double decrementSq = centre.newtonStep(x, dx); // the Newton decrement squared
        if (!(decrementSq >= 0))
            return {};
        if (decrementSq < kDecrement * kDecrement)
            return x;
        double alpha = 1;
        for (int halving = 0;; ++halving) {
            if (halving == kMaxHalvings)
                return {};
            for (std::size_t k = 0; k < x.size(); ++k)
                next[k] = x[k] + alpha * dx[k];
            // Within the quadratic region (decrement below 1/4) the full step stays inside and converges: the
            // barrier's gain there can be below its rounding, which a sufficient-increase test would misread.
            if (centre.slacks(next, nextSlack) &&
                (decrementSq < kQuadratic * kQuadratic || logRatioSum(slack, nextSlack) >= 0.01 * alpha * decrementSq))
                break;
            alpha /= 2;
        }
        std::swap(x, next);
        std::swap(slack, nextSlack);
    }
    return {};
}

} // namespace orrery::sched
