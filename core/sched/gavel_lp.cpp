#include "sched/gavel_lp.h"

#include "io/error.h"
#include "opt/linear_program.h"
#include "sim/reference_scaling.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace orrery::sched {

opt::LinearModel allocationModel(int jobs, int types, const std::vector<double>& rate, const std::vector<int>& demand,
                                 const std::vector<int>& capacity, double floorLower)
{
    const auto J = static_cast<std::size_t>(jobs);
    const auto T = static_cast<std::size_t>(types);
    opt::LinearModel model;
    model.setSense(opt::Sense::Maximize);
    for (std::size_t j = 0; j < J; ++j)
        model.addRow({}, {}, -opt::kInfinity, 1);
    for (std::size_t t = 0; t < T; ++t)
        model.addRow({}, {}, -opt::kInfinity, capacity[t]);
    for (std::size_t j = 0; j < J; ++j)
        model.addRow({}, {}, floorLower, opt::kInfinity);
    for (std::size_t k = 0; k < J * T; ++k) {
        const std::size_t j = k / T;
        const int col = model.addColumn(0, 1);
        model.addEntry(static_cast<int>(j), col, 1.0);
        model.addEntry(static_cast<int>(J + k % T), col, static_cast<double>(demand[k]));
        if (rate[k] > 0)
            model.addEntry(static_cast<int>(J + T + j), col, rate[k]);
    }
    return model;
}

AllocationLp::AllocationLp(int jobs, int types, std::vector<double> rate, const std::vector<int>& demand,
                           const std::vector<int>& capacity)
    : m_jobs(jobs), m_types(types), m_rate(std::move(rate))
{
    const auto J = static_cast<std::size_t>(jobs);
    const auto T = static_cast<std::size_t>(types);
    if (m_rate.size() != J * T || demand.size() != J * T || capacity.size() != T)
        throw std::invalid_argument("AllocationLp: rate and demand must be jobs x types, capacity per type");
    // Every cell is a variable, also where the job has no throughput: Gavel's LP has them too, and an
    // interior-point solution gives them time (which the round mechanism never uses), leaving less of that
    // type to the others.
    for (std::size_t k = 0; k < J * T; ++k)
        m_cell.push_back(k);
    // The default limit is far more iterations than these LPs need (a few hundred pivots).
    m_lp =
        std::make_unique<opt::LinearProgram>(allocationModel(jobs, types, m_rate, demand, capacity, -opt::kInfinity));
}

AllocationLp::~AllocationLp() = default;

void AllocationLp::setThroughputFloors(const std::vector<double>& floor)
{
    const auto J = static_cast<std::size_t>(m_jobs);
    const auto T = static_cast<std::size_t>(m_types);
    for (std::size_t j = 0; j < J; ++j)
        m_lp->setRowLower(static_cast<int>(J + T + j), floor[j]);
}

void AllocationLp::setObjective(const std::vector<double>& perCell)
{
    for (std::size_t i = 0; i < m_cell.size(); ++i)
        m_lp->setObjective(static_cast<int>(i), perCell[m_cell[i]]);
}

bool AllocationLp::solve(const char* policy)
{
    using Method = opt::LinearProgram::Method;
    // The last basis stays dual feasible when only row bounds changed.
    opt::Status status = m_lp->solve(m_solvedOnce ? Method::Dual : Method::Initial);
    m_solvedOnce = true;
    if (status == opt::Status::Optimal)
        return true;
    if (status == opt::Status::Infeasible)
        return false;
    // A primal-simplex retry settles the rare numerical hiccup of a warm-started dual.
    status = m_lp->solve(Method::Primal);
    if (status == opt::Status::Optimal)
        return true;
    if (status == opt::Status::Infeasible)
        return false;
    throw Error(std::string("policy \"") + policy + "\": the LP solver (CLP) stopped (" + opt::toString(status) +
                ") on " + std::to_string(m_jobs) + " jobs");
}

bool AllocationLp::solveInterior(const char* policy)
{
    using Method = opt::LinearProgram::Method;
    const opt::Status status = m_lp->solve(Method::BarrierNoCrossover);
    m_solvedOnce = true;
    if (status == opt::Status::Optimal)
        return true;
    // The barrier stalls now and then on degenerate problems (a single job, a floor met exactly); the simplex
    // then still gives an optimum, at a vertex.
    m_lp->solve(Method::Initial);
    return solve(policy);
}

std::vector<double> AllocationLp::solution() const
{
    std::vector<double> x(static_cast<std::size_t>(m_jobs) * static_cast<std::size_t>(m_types), 0.0);
    const double* sol = m_lp->columnValues();
    for (std::size_t i = 0; i < m_cell.size(); ++i)
        x[m_cell[i]] = std::clamp(sol[i], 0.0, 1.0);
    return x;
}

std::vector<double> allowedRates(const sim::View& view, const std::vector<int>& jobs)
{
    const auto& w = view.workload();
    const int nt = view.typeCount();
    std::vector<double> rate(jobs.size() * static_cast<std::size_t>(nt), 0.0);
    for (std::size_t k = 0; k < jobs.size(); ++k)
        for (int t = 0; t < nt; ++t)
            if (w.allowed(jobs[k], t))
                rate[k * static_cast<std::size_t>(nt) + static_cast<std::size_t>(t)] = w.rate(jobs[k], t);
    return rate;
}

std::vector<double> referenceRates(const sim::View& view, const std::vector<int>& jobs)
{
    const auto& w = view.workload();
    const int nt = view.typeCount();
    int ref = 0;
    for (int t = 1; t < nt; ++t)
        if (sim::ReferenceScaling::speed(w.type(t)) > sim::ReferenceScaling::speed(w.type(ref)))
            ref = t;
    std::vector<double> rate(jobs.size() * static_cast<std::size_t>(nt), 0.0);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        // A job that cannot run on the reference type gets its best rate instead (Gavel's table has none such).
        double r = w.allowed(jobs[k], ref) ? w.rate(jobs[k], ref) : 0.0;
        if (r <= 0)
            for (int t = 0; t < nt; ++t)
                if (w.allowed(jobs[k], t))
                    r = std::max(r, w.rate(jobs[k], t));
        for (int t = 0; t < nt; ++t)
            if (w.allowed(jobs[k], t))
                rate[k * static_cast<std::size_t>(nt) + static_cast<std::size_t>(t)] = r;
    }
    return rate;
}

AllocationInput allocationInput(const sim::View& view, const std::vector<int>& jobs, std::vector<double> rate)
{
    return {static_cast<int>(jobs.size()), view.typeCount(), std::move(rate), demands(view, jobs), capacities(view)};
}

std::vector<int> demands(const sim::View& view, const std::vector<int>& jobs)
{
    const auto& w = view.workload();
    const auto T = static_cast<std::size_t>(view.typeCount());
    std::vector<int> d(jobs.size() * T);
    for (std::size_t k = 0; k < jobs.size(); ++k)
        for (std::size_t t = 0; t < T; ++t)
            d[k * T + t] = w.demandOn(jobs[k], static_cast<int>(t));
    return d;
}

std::vector<int> capacities(const sim::View& view)
{
    std::vector<int> c(static_cast<std::size_t>(view.typeCount()));
    for (int t = 0; t < view.typeCount(); ++t)
        c[static_cast<std::size_t>(t)] = view.totalGpus(t);
    return c;
}

void isolatedAllocation(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
{
    const auto T = static_cast<std::size_t>(view.typeCount());
    const double m = static_cast<double>(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        double sum = 0;
        for (std::size_t t = 0; t < T; ++t) {
            const double demand = view.workload().demandOn(jobs[k], static_cast<int>(t));
            x[k * T + t] = view.totalGpus(static_cast<int>(t)) / m / demand;
            sum += x[k * T + t];
        }
        if (sum > 1)
            for (std::size_t t = 0; t < T; ++t)
                x[k * T + t] /= sum;
    }
}

} // namespace orrery::sched
