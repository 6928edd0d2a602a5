#include "sched/max_min_lp.h"

#include "opt/linear_program.h"
#include "sched/alike_jobs.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace orrery::sched {

namespace {

/** The first-stage LP of one recomputation: x columns for the cells with c > 0, then z. */
struct Lp
{
    std::unique_ptr<opt::LinearProgram> solver;
    std::vector<std::size_t> cell; // column -> row-major (job, type) index
    int nx = 0;
};

void build(Lp& lp, int jobs, int types, const std::vector<double>& c, const std::vector<int>& demand,
           const std::vector<int>& capacity)
{
    const auto J = static_cast<std::size_t>(jobs);
    const auto T = static_cast<std::size_t>(types);
    for (std::size_t k = 0; k < J * T; ++k)
        if (c[k] > 0)
            lp.cell.push_back(k);
    lp.nx = static_cast<int>(lp.cell.size());
    // Rows: z - sum_t c x <= 0 per job, the job's time budget, then the types' capacities.
    opt::LinearModel model;
    model.setSense(opt::Sense::Maximize);
    for (std::size_t j = 0; j < J; ++j)
        model.addRow({}, {}, -opt::kInfinity, 0);
    for (std::size_t j = 0; j < J; ++j)
        model.addRow({}, {}, -opt::kInfinity, 1);
    for (std::size_t t = 0; t < T; ++t)
        model.addRow({}, {}, -opt::kInfinity, capacity[t]);
    for (const std::size_t k : lp.cell) {
        const auto j = k / T;
        const int col = model.addColumn(0, 1);
        model.addEntry(static_cast<int>(j), col, -c[k]);
        model.addEntry(static_cast<int>(J + j), col, 1.0);
        model.addEntry(static_cast<int>(2 * J + k % T), col, static_cast<double>(demand[k]));
    }
    const int z = model.addColumn(0, opt::kInfinity, 1);
    for (std::size_t j = 0; j < J; ++j)
        model.addEntry(static_cast<int>(j), z, 1.0);
    // Every coefficient is a normalised throughput of order 1, a demand or a 1: scaling gains no accuracy
    // here, and on LPs this small its set-up is a quarter of the solve time.
    lp.solver = std::make_unique<opt::LinearProgram>(model, opt::Limits{}, opt::LpOptions{false});
}

/**
 * Second stage (hold the min, maximise total normalised throughput, `weight` per cell) from the first
 * stage's basis.
 */
bool tieBreak(Lp& lp, const std::vector<double>& weight, std::vector<double>& x)
{
    const double zStar = lp.solver->value(lp.nx);
    lp.solver->setColumnLower(lp.nx, zStar * (1 - 1e-7));
    lp.solver->setObjective(lp.nx, 0);
    for (int i = 0; i < lp.nx; ++i)
        lp.solver->setObjective(i, weight[lp.cell[static_cast<std::size_t>(i)]]);
    // From the first stage's optimal basis, which stays feasible.
    if (lp.solver->solve(opt::LinearProgram::Method::Primal) != opt::Status::Optimal)
        return false;
    const double* sol = lp.solver->columnValues();
    for (int i = 0; i < lp.nx; ++i)
        x[lp.cell[static_cast<std::size_t>(i)]] = std::clamp(sol[i], 0.0, 1.0);
    return true;
}

} // namespace

bool solveMaxMin(int jobs, int types, const std::vector<double>& c, const std::vector<int>& demand,
                 const std::vector<int>& capacity, std::vector<double>& x, bool mergeIdentical)
{
    const auto T = static_cast<std::size_t>(types);
    if (c.size() != static_cast<std::size_t>(jobs) * T || demand.size() != c.size() || capacity.size() != T)
        throw std::invalid_argument("solveMaxMin: c and demand must be jobs x types, capacity per type");
    x.assign(static_cast<std::size_t>(jobs) * T, 0.0);
    if (jobs == 0)
        return true;
    // Jobs with the same demand and the same row of c are interchangeable: both objectives and every
    // constraint are symmetric in them, so averaging any optimum over their permutations is optimal too.
    // One variable row per class, with its capacity use and throughput weighted by the class size,
    // is therefore the same LP, smaller by the number of duplicates (a trace has a few dozen job types).
    const AlikeJobs classes = mergeIdentical ? alikeJobs(jobs, types, demand, c) : eachJobAlone(jobs);
    const std::vector<int>& members = classes.members;
    const std::vector<std::size_t>& first = classes.first;
    const auto K = members.size();
    std::vector<double> cK(K * T), weight(K * T);
    std::vector<int> use(K * T);
    for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t t = 0; t < T; ++t) {
            use[k * T + t] = demand[first[k] * T + t] * members[k];
            cK[k * T + t] = c[first[k] * T + t];
            weight[k * T + t] = cK[k * T + t] * members[k];
        }
    }
    Lp lp;
    build(lp, static_cast<int>(K), types, cK, use, capacity);
    if (lp.solver->solve(opt::LinearProgram::Method::Primal) != opt::Status::Optimal)
        return false;
    std::vector<double> y(K * T, 0.0);
    if (!tieBreak(lp, weight, y))
        return false;
    for (std::size_t j = 0; j < static_cast<std::size_t>(jobs); ++j)
        for (std::size_t t = 0; t < T; ++t)
            x[j * T + t] = y[static_cast<std::size_t>(classes.classOf[j]) * T + t];
    return true;
}

} // namespace orrery::sched
