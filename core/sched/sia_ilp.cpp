#include "sched/sia_ilp.h"

#include "opt/linear_model.h"
#include "opt/milp.h"

#include <algorithm>
#include <cmath>

namespace orrery::sched {

double siaWeight(const SiaJob& job, int config, const SiaIlpOptions& options)
{
    const auto& c = job.configs[static_cast<std::size_t>(config)];
    const double v = config == job.current ? c.value : c.value * job.restartFactor;
    // sia.py __power_up_speedup_matrix: values of 1e-4 stand for "no gain" (ZERO_ALLOC_GAIN), rounded to 2 decimals
    // and clipped; a restart factor of 0 lands there too.
    const double pup = std::pow(std::max(v, 1e-4), options.p);
    return std::min(options.clip, std::round(pup * 100.0) / 100.0);
}

SiaIlpResult solveSiaIlp(const std::vector<SiaJob>& jobs, const std::vector<int>& capacity,
                         const SiaIlpOptions& options)
{
    SiaIlpResult out;
    out.chosen.assign(jobs.size(), -1);
    opt::LinearModel m;
    // Minimise for p < 0 (powers of goodput fall as goodput grows), maximise for p > 0: sia.py's sense.
    m.setSense(options.p < 0 ? opt::Sense::Minimize : opt::Sense::Maximize);
    std::vector<std::vector<int>> column(jobs.size());
    std::vector<std::vector<int>> typeColumns(capacity.size());
    std::vector<std::vector<double>> typeGpus(capacity.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        for (int c = 0; c < static_cast<int>(jobs[j].configs.size()); ++c) {
            const auto& cfg = jobs[j].configs[static_cast<std::size_t>(c)];
            // lambdaN (jobs - sum x): the constant is added to the objective afterwards.
            const int col = m.addColumn(0, 1, siaWeight(jobs[j], c, options) - options.lambdaN, true);
            column[j].push_back(col);
            typeColumns[static_cast<std::size_t>(cfg.type)].push_back(col);
            typeGpus[static_cast<std::size_t>(cfg.type)].push_back(cfg.gpus);
        }
        if (column[j].size() > 1)
            m.addRow(column[j], std::vector<double>(column[j].size(), 1.0), 0, 1);
    }
    for (std::size_t t = 0; t < capacity.size(); ++t)
        if (!typeColumns[t].empty())
            m.addRow(typeColumns[t], typeGpus[t], 0, capacity[t]);
    const double constant = options.lambdaN * static_cast<double>(jobs.size());
    // The objective is a sum over jobs and only the capacity rows couple them: when every job's own best choice
    // (its best configuration if that beats none, else none) fits every type, it is the optimum, without CBC.
    // This is the common round (GPUs for everyone) and the one where ties made branch and bound slowest.
    {
        const bool minimise = options.p < 0;
        std::vector<int> best(jobs.size(), -1);
        std::vector<long long> used(capacity.size(), 0);
        double objective = constant;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            double bestCoef = 0;
            for (int c = 0; c < static_cast<int>(jobs[j].configs.size()); ++c) {
                const double coef = siaWeight(jobs[j], c, options) - options.lambdaN;
                if (minimise ? coef < bestCoef : coef > bestCoef) {
                    bestCoef = coef;
                    best[j] = c;
                }
            }
            if (best[j] >= 0) {
                const auto& cfg = jobs[j].configs[static_cast<std::size_t>(best[j])];
                used[static_cast<std::size_t>(cfg.type)] += cfg.gpus;
                objective += bestCoef;
            }
        }
        bool fits = true;
        for (std::size_t t = 0; t < capacity.size(); ++t)
            fits = fits && used[t] <= capacity[t];
        if (fits) {
            out.status = opt::Status::Optimal;
            out.solved = true;
            out.chosen = best;
            out.objective = objective;
            return out;
        }
    }
    if (m.columns() == 0) {
        out.status = opt::Status::Optimal;
        out.solved = true;
        out.objective = constant;
        return out;
    }
    opt::Limits limits;
    limits.relativeGap = options.gap;
    limits.maxNodes = options.maxNodes;
    // The weights are rounded to hundredths (sia.py's np.round(..., 2)); with lambda_n in hundredths too every
    // objective value lies on a 0.01 grid, so a solution within 0.005 of the bound is optimal. Telling CBC so
    // spares it proving optimality among the many ties the rounding makes (rounds of a minute without it).
    if (std::abs(options.lambdaN * 100 - std::round(options.lambdaN * 100)) < 1e-9)
        limits.absoluteGap = 0.005;
    const opt::MilpResult r = opt::solveMilp(m, limits);
    out.status = r.status;
    out.nodes = r.nodes;
    if (r.values.empty()) {
        if (r.status != opt::Status::NodeLimit)
            return out;
        // The node limit came before any solution: every job keeps its current configuration, which fits (the
        // GPUs it holds are its type's).
        out.solved = true;
        double objective = constant;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            out.chosen[j] = jobs[j].current;
            if (jobs[j].current >= 0)
                objective += siaWeight(jobs[j], jobs[j].current, options) - options.lambdaN;
        }
        out.objective = objective;
        return out;
    }
    out.solved = true;
    out.objective = r.objective + constant;
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (std::size_t c = 0; c < column[j].size(); ++c)
            if (r.values[static_cast<std::size_t>(column[j][c])] > 0.5)
                out.chosen[j] = static_cast<int>(c);
    return out;
}

} // namespace orrery::sched
