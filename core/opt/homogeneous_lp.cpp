#include "opt/homogeneous_lp.h"

#include "opt/solver_clock.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace orrery::opt {

namespace {

// ECOS' constants (include/ecos.h).
constexpr double kGamma = 0.99;    // scaling of the final step length
constexpr double kStepMin = 1e-6;  // smallest step taken
constexpr double kStepMax = 0.999; // largest step, also in the affine direction
constexpr double kSigmaMin = 1e-4; // always some centring
constexpr double kSigmaMax = 1.0;
constexpr double kEps = 1e-13;
constexpr double kSafeguard = 500; // largest increase of the primal residual before giving up
constexpr int kEquilibrationPasses = 3;
constexpr double kLinearSystemAccuracy = 1e-14; // relative residual at which refinement stops
constexpr double kRefinementGain = 6;           // least fall of the residual per correction worth another

double dot(const std::vector<double>& a, const std::vector<double>& b)
{
    return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

/** a'b over the larger LP that `expanded` lists (LpOperator::expandedRows, expandedColumns); empty: dot(a, b). */
double dot(const std::vector<double>& a, const std::vector<double>& b, const std::vector<int>& expanded)
{
    if (expanded.empty())
        return dot(a, b);
    double sum = 0;
    for (const int i : expanded)
        sum += a[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(i)];
    return sum;
}

/**
 * N inner products a_k'b_k at once, each summed in dot(a, b, expanded)'s order, so each is that dot to the bit; their
 * additions interleave, so each sum waits on its own last addition only, not on all the others' too.
 */
template <std::size_t N>
std::array<double, N> dots(const std::array<std::pair<const std::vector<double>*, const std::vector<double>*>, N>& ab,
                           const std::vector<int>& expanded)
{
    std::array<const double*, N> a, b;
    for (std::size_t k = 0; k < N; ++k) {
        a[k] = ab[k].first->data();
        b[k] = ab[k].second->data();
    }
    std::array<double, N> sum{};
    const auto add = [&](std::size_t i) {
        for (std::size_t k = 0; k < N; ++k)
            sum[k] = sum[k] + a[k][i] * b[k][i];
    };
    if (expanded.empty())
        for (std::size_t i = 0; i < ab[0].first->size(); ++i)
            add(i);
    else
        for (const int i : expanded)
            add(static_cast<std::size_t>(i));
    return sum;
}

/** G with ECOS' Ruiz equilibration applied: G~ = diag(1/r) G diag(1/e), r per row, e per column. */
class Equilibrated
{
public:
    explicit Equilibrated(LpOperator& g)
        : m_g(g), m_row(static_cast<std::size_t>(g.rows()), 1.0), m_col(static_cast<std::size_t>(g.columns()), 1.0)
    {
        std::vector<double> rowMax(m_row.size()), colMax(m_col.size());
        for (int pass = 0; pass < kEquilibrationPasses; ++pass) {
            std::fill(rowMax.begin(), rowMax.end(), 0.0);
            std::fill(colMax.begin(), colMax.end(), 0.0);
            m_g.forEachEntry([&](int i, int k, double v) {
                const auto ui = static_cast<std::size_t>(i), uk = static_cast<std::size_t>(k);
                const double a = std::abs(v / (m_row[ui] * m_col[uk]));
                rowMax[ui] = std::max(rowMax[ui], a);
                colMax[uk] = std::max(colMax[uk], a);
            });
            for (std::size_t i = 0; i < m_row.size(); ++i)
                m_row[i] *= rowMax[i] < 1e-6 ? 1.0 : std::sqrt(rowMax[i]);
            for (std::size_t k = 0; k < m_col.size(); ++k)
                m_col[k] *= colMax[k] < 1e-6 ? 1.0 : std::sqrt(colMax[k]);
        }
        m_tmpX.resize(m_col.size());
        m_tmpZ.resize(m_row.size());
        m_w.resize(m_row.size());
    }
    const std::vector<double>& rowScale() const { return m_row; }
    const std::vector<double>& columnScale() const { return m_col; }

    void multiply(const std::vector<double>& x, std::vector<double>& out)
    {
        for (std::size_t k = 0; k < m_col.size(); ++k)
            m_tmpX[k] = x[k] / m_col[k];
        m_g.multiply(m_tmpX, out);
        for (std::size_t i = 0; i < m_row.size(); ++i)
            out[i] /= m_row[i];
    }
    void multiplyTransposed(const std::vector<double>& z, std::vector<double>& out)
    {
        for (std::size_t i = 0; i < m_row.size(); ++i)
            m_tmpZ[i] = z[i] / m_row[i];
        m_g.multiplyTransposed(m_tmpZ, out);
        for (std::size_t k = 0; k < m_col.size(); ++k)
            out[k] /= m_col[k];
    }
    /** Factors G~' diag(1 / v) G~ (v = W^2 per row). */
    bool factor(const std::vector<double>& v)
    {
        for (std::size_t i = 0; i < m_row.size(); ++i)
            m_w[i] = 1 / (v[i] * m_row[i] * m_row[i]);
        return m_g.factor(m_w);
    }
    /** (G~' diag(1 / v) G~)^-1 = E (G' diag(1 / (v r^2)) G)^-1 E. */
    void solve(std::vector<double>& rhs)
    {
        for (std::size_t k = 0; k < m_col.size(); ++k)
            rhs[k] *= m_col[k];
        m_g.solve(rhs);
        for (std::size_t k = 0; k < m_col.size(); ++k)
            rhs[k] *= m_col[k];
    }

private:
    LpOperator& m_g;
    std::vector<double> m_row, m_col, m_tmpX, m_tmpZ, m_w;
};

/**
 * ECOS' KKT system for the orthant, [0 G'; G -V] [dx; dz] = [bx; bz] with V = W^2: dx = K^-1 (bx + G' V^-1 bz),
 * K = G' V^-1 G, and dz = V^-1 (G dx - bz); optionally refined against that system's residual (HsdOptions).
 */
class Kkt
{
public:
    Kkt(Equilibrated& g, int refinementSteps) : m_g(g), m_refinementSteps(refinementSteps) {}
    bool factor(const std::vector<double>& v)
    {
        m_v = v;
        return m_g.factor(v);
    }
    void solve(const std::vector<double>& bx, const std::vector<double>& bz, std::vector<double>& dx,
               std::vector<double>& dz)
    {
        solveOnce(bx, bz, dx, dz);
        if (m_refinementSteps > 0)
            refine(bx, bz, dx, dz);
    }

private:
    void solveOnce(const std::vector<double>& bx, const std::vector<double>& bz, std::vector<double>& dx,
                   std::vector<double>& dz)
    {
        m_tmp.resize(bz.size());
        for (std::size_t i = 0; i < bz.size(); ++i)
            m_tmp[i] = bz[i] / m_v[i];
        m_g.multiplyTransposed(m_tmp, dx);
        for (std::size_t k = 0; k < bx.size(); ++k)
            dx[k] += bx[k];
        m_g.solve(dx);
        m_g.multiply(dx, dz);
        if (m_refinementSteps > 0)
            m_gdx = dz; // G dx, which the refinement's first residual needs again
        for (std::size_t i = 0; i < bz.size(); ++i)
            dz[i] = (dz[i] - bz[i]) / m_v[i];
    }

    /** ECOS' rule: correct while the residual (infinity norm) is above 1e-14 (1 + |b|) and falls sixfold. */
    void refine(const std::vector<double>& bx, const std::vector<double>& bz, std::vector<double>& dx,
                std::vector<double>& dz)
    {
        const auto infNorm = [](const std::vector<double>& a) {
            double n = 0;
            for (double v : a)
                n = std::max(n, std::abs(v));
            return n;
        };
        const double threshold = (1 + std::max(infNorm(bx), infNorm(bz))) * kLinearSystemAccuracy;
        double previous = 0;
        for (int step = 0;; ++step) {
            m_g.multiplyTransposed(dz, m_ex);
            for (std::size_t k = 0; k < bx.size(); ++k)
                m_ex[k] = bx[k] - m_ex[k];
            if (step == 0)
                m_ez = m_gdx; // the solve's own G dx: dx has not changed since
            else
                m_g.multiply(dx, m_ez);
            for (std::size_t i = 0; i < bz.size(); ++i)
                m_ez[i] = bz[i] - (m_ez[i] - m_v[i] * dz[i]);
            const double error = std::max(infNorm(m_ex), infNorm(m_ez));
            if (step > 0 && error > previous) { // the last correction made it worse: take it back
                for (std::size_t k = 0; k < dx.size(); ++k)
                    dx[k] -= m_cx[k];
                for (std::size_t i = 0; i < dz.size(); ++i)
                    dz[i] -= m_cz[i];
                return;
            }
            if (step == m_refinementSteps || error < threshold || (step > 0 && previous < kRefinementGain * error))
                return;
            previous = error;
            solveOnce(m_ex, m_ez, m_cx, m_cz);
            for (std::size_t k = 0; k < dx.size(); ++k)
                dx[k] += m_cx[k];
            for (std::size_t i = 0; i < dz.size(); ++i)
                dz[i] += m_cz[i];
        }
    }

    Equilibrated& m_g;
    int m_refinementSteps;
    std::vector<double> m_v, m_tmp, m_ex, m_ez, m_cx, m_cz, m_gdx;
};

/** ECOS' bring2cone on the orthant: r + (1 + alpha) e with alpha = max(-0.99, the largest -r_i over r_i <= 0). */
void bringToCone(std::vector<double>& r)
{
    double alpha = -kGamma;
    for (double v : r)
        if (v <= 0 && -v > alpha)
            alpha = -v;
    for (double& v : r)
        v += 1 + alpha;
}

/** ECOS' lineSearch on the orthant (ds, dz scaled by W, as lambda is). */
double lineSearch(const std::vector<double>& lambda, const std::vector<double>& ds, const std::vector<double>& dz,
                  double tau, double dtau, double kappa, double dkappa)
{
    double alpha = 10;
    if (!lambda.empty()) {
        double rhoMin = ds[0] / lambda[0], sigmaMin = dz[0] / lambda[0];
        for (std::size_t i = 1; i < lambda.size(); ++i) {
            rhoMin = std::min(rhoMin, ds[i] / lambda[i]);
            sigmaMin = std::min(sigmaMin, dz[i] / lambda[i]);
        }
        if (-sigmaMin > -rhoMin)
            alpha = sigmaMin < 0 ? 1 / -sigmaMin : 1 / kEps;
        else
            alpha = rhoMin < 0 ? 1 / -rhoMin : 1 / kEps;
    }
    const double byTau = -tau / dtau, byKappa = -kappa / dkappa;
    if (byTau > 0 && byTau < alpha)
        alpha = byTau;
    if (byKappa > 0 && byKappa < alpha)
        alpha = byKappa;
    return std::clamp(alpha, kStepMin, kStepMax);
}

/** An iterate's statistics (ECOS' updateStatistics); NaN where ECOS leaves a measure undefined. */
struct IterateStats
{
    double cx = 0, hz = 0, gap = 0, mu = 0;
    double relgap = std::nan(""), pres = 0, dres = 0;
    double pinfres = std::nan(""), dinfres = std::nan("");
    double kappaOverTau = 0;
};

/**
 * ECOS' compareStatistics: whether iterate a is better than b. ECOS tests "pinfres != NaN" there, which is true of
 * every double (NaN compares unequal to itself), so the branch taken depends on kappa / tau alone; this keeps
 * that behaviour, as its best iterate is what ECOS returns.
 */
bool better(const IterateStats& a, const IterateStats& b)
{
    const bool smallerGap = a.gap > 0 && b.gap > 0 && a.gap < b.gap;
    const bool smallerMu = a.mu > 0 && a.mu < b.mu;
    if (a.kappaOverTau > 1)
        return smallerGap && a.pinfres > 0 && a.pinfres < b.pres && smallerMu;
    return smallerGap && a.pres > 0 && a.pres < b.pres && a.dres > 0 && a.dres < b.dres && a.kappaOverTau > 0 &&
           a.kappaOverTau < b.kappaOverTau && smallerMu;
}

} // namespace

HsdResult solveHomogeneous(LpOperator& op, const std::vector<double>& cIn, const std::vector<double>& hIn,
                           const HsdOptions& options)
{
    SolverTimer timer;
    const auto n = static_cast<std::size_t>(op.columns());
    const auto m = static_cast<std::size_t>(op.rows());
    if (cIn.size() != n || hIn.size() != m)
        throw std::invalid_argument("solveHomogeneous: c needs one entry per column, h one per row");
    HsdResult result;

    // The problem ECOS works on: G~ x~ <= h~ with h~ = h / r, c~ = c / e, x = x~ / e.
    Equilibrated g(op);
    std::vector<double> c(n), h(m);
    for (std::size_t k = 0; k < n; ++k)
        c[k] = cIn[k] / g.columnScale()[k];
    for (std::size_t i = 0; i < m; ++i)
        h[i] = hIn[i] / g.rowScale()[i];
    Kkt kkt(g, options.refinementSteps);
    const auto finish = [&](HsdStatus status, const std::vector<double>& x, double tau) {
        result.status = status;
        if (status == HsdStatus::Optimal || status == HsdStatus::OptimalInaccurate || status == HsdStatus::Unknown) {
            result.x.resize(n);
            for (std::size_t k = 0; k < n; ++k)
                result.x[k] = x[k] / (g.columnScale()[k] * tau);
        }
        return result;
    };

    // Starting point (ECOS' init, with W = I): x = argmin ||G x - h||, s = h - G x and z = argmin ||z|| subject to
    // G' z + c = 0, each brought into the cone.
    std::vector<double> x(n), s(m), z(m), negC(n), zero(m, 0.0);
    if (!kkt.factor(std::vector<double>(m, 1.0)))
        return result;
    kkt.solve(std::vector<double>(n, 0.0), h, x, s);
    for (double& v : s)
        v = -v;
    bringToCone(s);
    for (std::size_t k = 0; k < n; ++k)
        negC[k] = -c[k];
    {
        std::vector<double> unused(n);
        kkt.solve(negC, zero, unused, z);
    }
    bringToCone(z);
    double tau = 1, kappa = 1;

    // The larger LP's rows and columns when `op` stands for one with copies (LpOperator::expandedRows).
    const std::vector<int> rowsExpanded = op.expandedRows(), columnsExpanded = op.expandedColumns();
    const double resx0 = std::max(1.0, std::sqrt(dot(c, c, columnsExpanded)));
    const double resz0 = std::max(1.0, std::sqrt(dot(h, h, rowsExpanded)));
    const double degree = static_cast<double>(rowsExpanded.empty() ? m : rowsExpanded.size());
    std::vector<double> rx(n), rz(m), w(m), lambda(m), v(m), dx1(n), dz1(m), dx2(n), dz2(m), bz(m);
    std::vector<double> wdz(m), dsByW(m), ds(m), ds1(m), rxBefore(n), rzBefore(m);
    double presPrev = 0, step = 0;
    // ECOS' best iterate so far, returned when a failure path ends the solve.
    IterateStats best;
    std::vector<double> bestX;
    double bestTau = 1, bestKappa = 1;
    const auto converged = [&](const IterateStats& st, double tauNow, double kappaNow, double feasTol, double absTol,
                               double relTol) {
        if ((-st.cx > 0 || -st.hz >= -absTol) && st.pres < feasTol && st.dres < feasTol &&
            (st.gap < absTol || st.relgap < relTol))
            return HsdStatus::Optimal;
        if (st.dinfres < feasTol && tauNow < kappaNow)
            return HsdStatus::DualInfeasible;
        if ((st.pinfres < feasTol && tauNow < kappaNow) ||
            (tauNow < options.feasTol && kappaNow < options.feasTol && st.pinfres < options.feasTol))
            return HsdStatus::PrimalInfeasible;
        return HsdStatus::Unknown;
    };
    // ECOS' ending on a failure path: back to the best iterate (keeping the current one instead when `keepIfBetter`
    // and it compares better), then its reduced tolerances; only "optimal" is reported at reduced accuracy.
    const auto recover = [&](const IterateStats& current, bool keepIfBetter) {
        const auto closeToOptimal = [&](const IterateStats& st, double tauNow, double kappaNow) {
            return converged(st, tauNow, kappaNow, options.feasTolInaccurate, options.absTolInaccurate,
                             options.relTolInaccurate) == HsdStatus::Optimal;
        };
        if (bestX.empty() || (keepIfBetter && better(current, best)))
            return finish(closeToOptimal(current, tau, kappa) ? HsdStatus::OptimalInaccurate : HsdStatus::Unknown, x,
                          tau);
        return finish(closeToOptimal(best, bestTau, bestKappa) ? HsdStatus::OptimalInaccurate : HsdStatus::Unknown,
                      bestX, bestTau);
    };

    for (int iter = 0; iter <= options.maxIterations; ++iter) {
        result.iterations = iter;
        // Residuals (computeResiduals) and statistics (updateStatistics).
        g.multiplyTransposed(z, rx);
        for (double& r : rx)
            r = -r;
        rxBefore = rx;
        for (std::size_t k = 0; k < n; ++k)
            rx[k] -= tau * c[k];
        g.multiply(x, rz);
        for (std::size_t i = 0; i < m; ++i)
            rz[i] += s[i];
        rzBefore = rz;
        for (std::size_t i = 0; i < m; ++i)
            rz[i] -= tau * h[i];
        // ECOS' norms and products of the iterate, the columns' and the rows' each in one pass.
        const auto [rxBefore2, cxSum, nx2, rx2] =
            dots<4>({{{&rxBefore, &rxBefore}, {&c, &x}, {&x, &x}, {&rx, &rx}}}, columnsExpanded);
        const auto [rzBefore2, hzSum, ns2, nz2, gapSum, rz2] =
            dots<6>({{{&rzBefore, &rzBefore}, {&h, &z}, {&s, &s}, {&z, &z}, {&s, &z}, {&rz, &rz}}}, rowsExpanded);
        const double hresx = std::sqrt(rxBefore2), hresz = std::sqrt(rzBefore2);
        IterateStats st;
        st.cx = cxSum;
        st.hz = hzSum;
        const double cx = st.cx, hz = st.hz;
        const double rt = kappa + cx + hz;
        const double nx = std::sqrt(nx2), ns = std::sqrt(ns2), nz = std::sqrt(nz2);
        st.gap = gapSum;
        const double gap = st.gap;
        st.mu = (gap + kappa * tau) / (degree + 1);
        const double mu = st.mu;
        const double pcost = cx / tau, dcost = -hz / tau;
        if (pcost < 0)
            st.relgap = gap / -pcost;
        else if (dcost > 0)
            st.relgap = gap / dcost;
        st.pres = std::sqrt(rz2) / std::max(resz0 + nx + ns, 1.0) / tau;
        st.dres = std::sqrt(rx2) / std::max(resx0 + nz, 1.0) / tau;
        if (hz / std::max(nz, 1.0) < -options.relTol)
            st.pinfres = hresx / std::max(nz, 1.0);
        if (cx / std::max(nx, 1.0) < -options.relTol)
            st.dinfres = hresz / std::max(nx + ns, 1.0);
        st.kappaOverTau = kappa / tau;

        if (iter > 0 && (st.pres > kSafeguard * presPrev || gap < 0))
            return recover(st, false);
        presPrev = st.pres;
        // checkExitConditions at full precision.
        if (const HsdStatus full = converged(st, tau, kappa, options.feasTol, options.absTol, options.relTol);
            full != HsdStatus::Unknown)
            return finish(full, x, tau);
        if (iter > 0 && step == kStepMin * kGamma)
            return recover(st, false);
        if (iter == options.maxIterations || std::isnan(pcost))
            return recover(st, true);
        if (iter == 0 || better(st, best)) {
            best = st;
            bestX = x;
            bestTau = tau;
            bestKappa = kappa;
        }

        // Scalings (updateScalings): W = sqrt(s / z), lambda = W^-1 s = sqrt(s z).
        for (std::size_t i = 0; i < m; ++i) {
            if (!(s[i] > 0) || !(z[i] > 0))
                return recover(st, false);
            w[i] = std::sqrt(s[i] / z[i]);
            lambda[i] = std::sqrt(s[i] * z[i]);
            v[i] = w[i] * w[i];
        }
        if (!kkt.factor(v))
            return recover(st, false);
        kkt.solve(negC, h, dx1, dz1);
        // Affine direction.
        for (std::size_t i = 0; i < m; ++i)
            bz[i] = s[i] - rz[i];
        kkt.solve(rx, bz, dx2, dz2);
        const auto [cdx1, cdx2] = dots<2>({{{&c, &dx1}, {&c, &dx2}}}, columnsExpanded);
        const auto [hdz1, hdz2] = dots<2>({{{&h, &dz1}, {&h, &dz2}}}, rowsExpanded);
        const double dtauDenom = kappa / tau - cdx1 - hdz1;
        const double dtauAff = (rt - kappa + cdx2 + hdz2) / dtauDenom;
        for (std::size_t i = 0; i < m; ++i) {
            dz2[i] += dtauAff * dz1[i];
            wdz[i] = w[i] * dz2[i];
            dsByW[i] = -wdz[i] - lambda[i];
        }
        const double dkappaAff = -kappa - kappa / tau * dtauAff;
        const double stepAff = lineSearch(lambda, dsByW, wdz, tau, dtauAff, kappa, dkappaAff);
        const double sigma = std::clamp(std::pow(1 - stepAff, 3), kSigmaMin, kSigmaMax);

        // Combined direction (RHS_combined).
        for (std::size_t i = 0; i < m; ++i) {
            ds1[i] = lambda[i] * lambda[i] + dsByW[i] * wdz[i] - sigma * mu;
            dsByW[i] = ds1[i] / lambda[i];
            bz[i] = -(1 - sigma) * rz[i] + w[i] * dsByW[i];
        }
        for (std::size_t k = 0; k < n; ++k)
            rx[k] *= 1 - sigma;
        kkt.solve(rx, bz, dx2, dz2);
        const double bkappa = kappa * tau + dkappaAff * dtauAff - sigma * mu;
        const double dtau =
            ((1 - sigma) * rt - bkappa / tau + dot(c, dx2, columnsExpanded) + dot(h, dz2, rowsExpanded)) / dtauDenom;
        for (std::size_t k = 0; k < n; ++k)
            dx2[k] += dtau * dx1[k];
        for (std::size_t i = 0; i < m; ++i) {
            dz2[i] += dtau * dz1[i];
            wdz[i] = w[i] * dz2[i];
            dsByW[i] = -(dsByW[i] + wdz[i]);
        }
        const double dkappa = -(bkappa + kappa * dtau) / tau;
        step = lineSearch(lambda, dsByW, wdz, tau, dtau, kappa, dkappa) * kGamma;
        for (std::size_t k = 0; k < n; ++k)
            x[k] += step * dx2[k];
        for (std::size_t i = 0; i < m; ++i) {
            z[i] += step * dz2[i];
            s[i] += step * w[i] * dsByW[i];
        }
        kappa += step * dkappa;
        tau += step * dtau;
    }
    return finish(HsdStatus::Unknown, x, tau); // not reached: the loop returns at maxIterations
}

} // namespace orrery::opt
