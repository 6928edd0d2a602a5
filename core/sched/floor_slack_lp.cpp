#include "sched/floor_slack_lp.h"

#include "io/error.h"
#include "opt/linear_program.h"

#include <algorithm>
#include <string>

namespace orrery::sched {

FloorSlackLp::FloorSlackLp(const AllocationInput& in, const std::vector<double>& weight)
    : m_jobs(in.jobs), m_types(in.types), m_weight(weight)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    // Rows and cells as AllocationLp has them, then the slack column.
    opt::LinearModel model = allocationModel(in.jobs, in.types, in.rate, in.demand, in.capacity, -opt::kInfinity);
    m_slackColumn = model.addColumn(-opt::kInfinity, opt::kInfinity, 1);
    for (std::size_t j = 0; j < J; ++j)
        if (weight[j] != 0)
            model.addEntry(static_cast<int>(J + T + j), m_slackColumn, -weight[j]);
    m_lp = std::make_unique<opt::LinearProgram>(model);
}

FloorSlackLp::~FloorSlackLp() = default;

double FloorSlackLp::maxSlack(const std::vector<double>& floor, const char* policy)
{
    using Method = opt::LinearProgram::Method;
    const auto J = static_cast<std::size_t>(m_jobs);
    const auto T = static_cast<std::size_t>(m_types);
    // t's lower bound is where x = 0 meets every floor: never binding at the optimum, and it makes the first solve a
    // primal simplex from the slack basis (x = 0, t at that bound is feasible), cheaper than CLP's initialSolve.
    double lowest = 0;
    for (std::size_t j = 0; j < J; ++j) {
        m_lp->setRowLower(static_cast<int>(J + T + j), floor[j]);
        if (m_weight[j] > 0)
            lowest = std::min(lowest, -floor[j] / m_weight[j]);
    }
    m_lp->setColumnLower(m_slackColumn, lowest - 1);
    // After a change of floors the last basis stays dual feasible.
    opt::Status status = m_lp->solve(m_solvedOnce ? Method::Dual : Method::Primal);
    m_solvedOnce = true;
    if (status != opt::Status::Optimal)
        status = m_lp->solve(Method::Primal); // the rare numerical hiccup of a warm-started dual
    if (status != opt::Status::Optimal)
        throw Error(std::string("policy \"") + policy + "\": the LP solver (CLP) stopped (" + opt::toString(status) +
                    ") on " + std::to_string(m_jobs) + " jobs");
    return m_lp->value(m_slackColumn);
}

} // namespace orrery::sched
