#pragma once

#include <functional>
#include <vector>

namespace orrery::opt {

/**
 * The constraint matrix G of an LP  min c'x  s.t.  G x <= h  (x free), as the interior-point method below needs
 * it: products with G and G', and solves with the normal matrix G' diag(w) G. A caller that knows G's structure
 * solves those in far less than a dense factorisation would take (sched's Gavel allocation LP: block-diagonal
 * per job plus one low-rank term per GPU type).
 */
class LpOperator
{
public:
    virtual ~LpOperator() = default;
    virtual int columns() const = 0;
    virtual int rows() const = 0;
    /** out = G x (out has rows() entries). */
    virtual void multiply(const std::vector<double>& x, std::vector<double>& out) const = 0;
    /** out = G' z (out has columns() entries). */
    virtual void multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const = 0;
    /** Prepares solve() with K = G' diag(w) G, w > 0 per row; false when K is numerically singular. */
    virtual bool factor(const std::vector<double>& w) = 0;
    /** rhs := K^-1 rhs. */
    virtual void solve(std::vector<double>& rhs) const = 0;
    /** Calls f(row, column, value) for every structurally non-zero entry of G. */
    virtual void forEachEntry(const std::function<void(int, int, double)>& f) const = 0;
    /**
     * When this operator stands for a larger LP whose rows and columns come in identical copies (alike jobs of an
     * allocation LP, on which the method's iterates stay equal from its symmetric start): the larger LP's rows, in
     * its order, each given as the row of this operator that stands for it; empty (the default): this operator's
     * own rows. multiply() then gives the larger LP's products on the rows kept, multiplyTransposed() on the columns
     * kept, and the method takes its norms, inner products and the barrier's degree over the larger LP, in its
     * order, so that every step is the larger LP's to the bit.
     */
    virtual std::vector<int> expandedRows() const { return {}; }
    /** As expandedRows(), for the columns. */
    virtual std::vector<int> expandedColumns() const { return {}; }
};

/** How solveHomogeneous ended (ECOS' exit flags). */
enum class HsdStatus {
    Optimal,
    OptimalInaccurate, ///< a failure path came first, but the best iterate meets ECOS' reduced tolerances
    PrimalInfeasible,
    DualInfeasible,
    Unknown, ///< the iteration limit, a stalled step, a singular normal matrix or a numerical safeguard came first
};

struct HsdOptions
{
    // ECOS' defaults (Gavel's cvxpy calls ECOS with them).
    double feasTol = 1e-8;
    double absTol = 1e-8;
    double relTol = 1e-8;
    // ECOS' reduced tolerances, checked on the best iterate when a failure path ends the solve.
    double feasTolInaccurate = 1e-4;
    double absTolInaccurate = 5e-5;
    double relTolInaccurate = 5e-5;
    int maxIterations = 100;
    /**
     * Corrections of each search direction against the residual of the unreduced KKT system, as ECOS refines
     * its regularised LDL solves (ECOS: up to 9, stopping once the residual is below 1e-14 of the right-hand
     * side or falls by less than a factor 6). Near an optimal vertex the normal matrix is nearly singular and
     * its plain solve loses the digits the step needs (max_sum_throughput's LP stalled without them); 0 keeps
     * the plain solve, whose points min_total_duration's validation was measured with.
     */
    int refinementSteps = 0;
};

struct HsdResult
{
    HsdStatus status = HsdStatus::Unknown;
    std::vector<double> x; ///< the primal point (for Unknown: the best iterate); empty when infeasible
    int iterations = 0;
};

/**
 * Solves min c'x s.t. G x <= h by ECOS' algorithm (Domahidi, Chu & Boyd, ECC 2013; embotech/ecos 2.0, src/ecos.c)
 * restricted to the non-negative orthant: Ruiz equilibration of G (three passes), ECOS' starting point (least
 * squares, brought into the cone), the homogeneous self-dual embedding with Nesterov-Todd scaling, a Mehrotra
 * predictor-corrector step with sigma = (1 - affine step)^3 clamped to [1e-4, 1], a step of 0.99 times the
 * distance to the boundary (at most 0.999), and ECOS' stopping rules. Normal-matrix solves stand in for ECOS'
 * regularised LDL (the same directions up to rounding; HsdOptions::refinementSteps adds ECOS' iterative refinement).
 * On ECOS' failure paths (its safeguards, a stalled step, the iteration limit, leaving the cone) it goes back to
 * the best iterate seen, by ECOS' comparison of their statistics, and returns OptimalInaccurate when that meets
 * ECOS' reduced tolerances (ECOS' "close to optimal", cvxpy's "optimal_inaccurate"), else Unknown.
 *
 * Why it exists beside CLP: on an LP whose optimum is not unique, and above all on a feasibility problem (c = 0),
 * where a method stops is where the answer lies. Gavel's policies take whatever point ECOS returns, and this
 * returns ECOS' point; CLP's barrier goes on towards the analytic centre, a different allocation
 * (docs/validation.md). Limited by iterations only; the time spent is added to this thread's solver seconds.
 */
HsdResult solveHomogeneous(LpOperator& g, const std::vector<double>& c, const std::vector<double>& h,
                           const HsdOptions& options = {});

} // namespace orrery::opt
