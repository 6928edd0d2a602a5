// core/opt: the LP/MILP helper over COIN-OR CLP and CBC (docs/opt.md): models, warm-started LPs, MILPs, count limits,
// and the per-thread solver clock the engine records per decision.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "opt/coin_module.h"
#include "opt/homogeneous_lp.h"
#include "opt/linear_model.h"
#include "opt/linear_program.h"
#include "opt/milp.h"
#include "opt/small_cholesky.h"
#include "opt/solver_clock.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <link.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>

using namespace orrery;

namespace {

/** max x + y  s.t.  x + 2y <= 4,  3x + y <= 6,  x, y >= 0: optimum (1.6, 1.2), objective 2.8. */
opt::LinearModel smallLp()
{
    opt::LinearModel m;
    m.setSense(opt::Sense::Maximize);
    const int x = m.addColumn(0, opt::kInfinity, 1);
    const int y = m.addColumn(0, opt::kInfinity, 1);
    m.addRow({x, y}, {1, 2}, -opt::kInfinity, 4);
    m.addRow({x, y}, {3, 1}, -opt::kInfinity, 6);
    return m;
}

/** G stored densely (row-major), its normal matrix solved by Gaussian elimination: small test LPs only. */
class DenseOperator : public opt::LpOperator
{
public:
    DenseOperator(int rows, int columns, std::vector<double> g) : m_rows(rows), m_cols(columns), m_g(std::move(g)) {}
    int columns() const override { return m_cols; }
    int rows() const override { return m_rows; }
    void multiply(const std::vector<double>& x, std::vector<double>& out) const override
    {
        out.assign(static_cast<std::size_t>(m_rows), 0.0);
        for (int i = 0; i < m_rows; ++i)
            for (int k = 0; k < m_cols; ++k)
                out[static_cast<std::size_t>(i)] += at(i, k) * x[static_cast<std::size_t>(k)];
    }
    void multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const override
    {
        out.assign(static_cast<std::size_t>(m_cols), 0.0);
        for (int i = 0; i < m_rows; ++i)
            for (int k = 0; k < m_cols; ++k)
                out[static_cast<std::size_t>(k)] += at(i, k) * z[static_cast<std::size_t>(i)];
    }
    void forEachEntry(const std::function<void(int, int, double)>& f) const override
    {
        for (int i = 0; i < m_rows; ++i)
            for (int k = 0; k < m_cols; ++k)
                if (at(i, k) != 0)
                    f(i, k, at(i, k));
    }
    bool factor(const std::vector<double>& w) override
    {
        const auto n = static_cast<std::size_t>(m_cols);
        m_k.assign(n * n, 0.0);
        for (int i = 0; i < m_rows; ++i)
            for (int a = 0; a < m_cols; ++a)
                for (int b = 0; b < m_cols; ++b)
                    m_k[static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b)] +=
                        w[static_cast<std::size_t>(i)] * at(i, a) * at(i, b);
        return true;
    }
    void solve(std::vector<double>& v) const override
    {
        const auto n = static_cast<std::size_t>(m_cols);
        std::vector<double> k = m_k;
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t r = p + 1; r < n; ++r) {
                const double f = k[r * n + p] / k[p * n + p];
                for (std::size_t c = p; c < n; ++c)
                    k[r * n + c] -= f * k[p * n + c];
                v[r] -= f * v[p];
            }
        for (std::size_t p = n; p-- > 0;) {
            for (std::size_t c = p + 1; c < n; ++c)
                v[p] -= k[p * n + c] * v[c];
            v[p] /= k[p * n + p];
        }
    }

private:
    double at(int i, int k) const
    {
        return m_g[static_cast<std::size_t>(i) * static_cast<std::size_t>(m_cols) + static_cast<std::size_t>(k)];
    }
    int m_rows, m_cols;
    std::vector<double> m_g, m_k;
};

/** Whether a library whose file name contains `name` is mapped into this process. */
bool mapped(const char* name)
{
    struct Search
    {
        const char* name;
        bool found = false;
    } search{name};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto* s = static_cast<Search*>(data);
            s->found = s->found || (info->dlpi_name && std::string(info->dlpi_name).find(s->name) != std::string::npos);
            return 0;
        },
        &search);
    return search.found;
}

} // namespace

class TestOpt : public QObject
{
    Q_OBJECT
private slots:
    // First, before any slot solves: the solver module is loaded by the first solve and not before.
    void solversLoadOnFirstUse()
    {
        QVERIFY(!mapped("libClp") && !mapped("libCbc") && !mapped("orrery_coin"));
        // A module that is not there is an error that names where it was looked for; nothing is left loaded.
        const std::string missing = "/nonexistent/orrery_coin.so";
        setenv("ORRERY_COIN_MODULE", missing.c_str(), 1);
        try {
            opt::LinearProgram lp(smallLp());
            QFAIL("a solver module was loaded from a path that does not exist");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(missing) != std::string::npos, e.what());
        }
        unsetenv("ORRERY_COIN_MODULE");
        QVERIFY(!mapped("libClp"));
        QVERIFY(opt::coin::modulePath().ends_with("orrery_coin.so"));
        opt::LinearProgram lp(smallLp());
        QCOMPARE(lp.solve(opt::LinearProgram::Method::Initial), opt::Status::Optimal);
        QVERIFY(mapped("orrery_coin") && mapped("libClp") && mapped("libCbc"));
    }

    void homogeneousMethodSolvesLps()
    {
        // smallLp() as min -x - y s.t. G v <= h: optimum (1.6, 1.2), found to ECOS' tolerances.
        DenseOperator g(4, 2, {1, 2, 3, 1, -1, 0, 0, -1});
        auto r = opt::solveHomogeneous(g, {-1, -1}, {4, 6, 0, 0});
        QVERIFY(r.status == opt::HsdStatus::Optimal);
        QVERIFY(std::abs(r.x[0] - 1.6) < 1e-6 && std::abs(r.x[1] - 1.2) < 1e-6);
        QVERIFY(r.iterations > 0 && r.iterations < 30);
        // x <= -1 and x >= 0: a certificate of primal infeasibility.
        DenseOperator single(2, 1, {1, -1});
        QVERIFY(opt::solveHomogeneous(single, {0}, {-1, 0}).status == opt::HsdStatus::PrimalInfeasible);
        // min -x s.t. x >= 0 only: unbounded, a certificate of dual infeasibility.
        DenseOperator ray(1, 1, {-1});
        QVERIFY(opt::solveHomogeneous(ray, {-1}, {0}).status == opt::HsdStatus::DualInfeasible);
        // An iteration limit of 1 stops before convergence and says so.
        opt::HsdOptions one;
        one.maxIterations = 1;
        QVERIFY(opt::solveHomogeneous(g, {-1, -1}, {4, 6, 0, 0}, one).status == opt::HsdStatus::Unknown);
        // c = 0 (a feasibility problem, every point of {x <= 1, x >= 0, x <= 4} optimal): the method stops where
        // ECOS 2.0.10 stops, 0.78886931, not at the analytic centre (0.4648) nor at a vertex.
        DenseOperator box(3, 1, {1, -1, 1});
        r = opt::solveHomogeneous(box, {0}, {1, 0, 4});
        QVERIFY(r.status == opt::HsdStatus::Optimal);
        QVERIFY2(std::abs(r.x[0] - 0.78886931) < 1e-4, qPrintable(QString::number(r.x[0], 'g', 12)));
    }

    void homogeneousMethodRefinesAndRecovers()
    {
        // ECOS' iterative refinement changes a direction only by what the plain solve got wrong: the same optimum.
        DenseOperator g(4, 2, {1, 2, 3, 1, -1, 0, 0, -1});
        opt::HsdOptions refined;
        refined.refinementSteps = 9;
        const auto plain = opt::solveHomogeneous(g, {-1, -1}, {4, 6, 0, 0});
        const auto r = opt::solveHomogeneous(g, {-1, -1}, {4, 6, 0, 0}, refined);
        QVERIFY(r.status == opt::HsdStatus::Optimal);
        QVERIFY(std::abs(r.x[0] - plain.x[0]) < 1e-9 && std::abs(r.x[1] - plain.x[1]) < 1e-9);
        // Cut off by the iteration limit, the method answers with ECOS' reduced tolerances: far from the optimum it
        // knows nothing (Unknown), close to it (within 1e-4 but not 1e-8) it is close to optimal, and the point it
        // returns then is the optimum to that accuracy.
        bool sawInaccurate = false;
        for (int limit = 1; limit < 30; ++limit) {
            opt::HsdOptions cut;
            cut.maxIterations = limit;
            const auto c = opt::solveHomogeneous(g, {-1, -1}, {4, 6, 0, 0}, cut);
            QVERIFY(!c.x.empty());
            if (c.status == opt::HsdStatus::OptimalInaccurate) {
                sawInaccurate = true;
                QVERIFY2(std::abs(c.x[0] - 1.6) < 1e-3 && std::abs(c.x[1] - 1.2) < 1e-3,
                         qPrintable(QString("%1: %2, %3").arg(limit).arg(c.x[0]).arg(c.x[1])));
            }
            if (c.status == opt::HsdStatus::Optimal) {
                QVERIFY(sawInaccurate);
                break;
            }
        }
        QVERIFY(sawInaccurate);
    }

    void smallCholeskySolves()
    {
        // A = L L' with L = [[2, 0, 0], [1, 3, 0], [-1, 2, 1]]: A = [[4, 2, -2], [2, 10, 5], [-2, 5, 6]].
        double a[9] = {4, 2, -2, 2, 10, 5, -2, 5, 6};
        QVERIFY(opt::choleskyFactor(a, 3));
        QCOMPARE(a[0], 2.0);
        QCOMPARE(a[3], 1.0);
        QCOMPARE(a[4], 3.0);
        QCOMPARE(a[6], -1.0);
        QCOMPARE(a[7], 2.0);
        QCOMPARE(a[8], 1.0);
        // A (1, -1, 2)' = (-2, 2, 5)'.
        double v[3] = {-2, 2, 5};
        opt::choleskySolve(a, 3, v);
        QVERIFY(std::abs(v[0] - 1) < 1e-14 && std::abs(v[1] + 1) < 1e-14 && std::abs(v[2] - 2) < 1e-14);
        // Indefinite, singular, or not a number: refused.
        double indefinite[4] = {1, 2, 2, 1};
        QVERIFY(!opt::choleskyFactor(indefinite, 2));
        double singular[4] = {1, 1, 1, 1};
        QVERIFY(!opt::choleskyFactor(singular, 2));
        double nan[1] = {std::nan("")};
        QVERIFY(!opt::choleskyFactor(nan, 1));
    }

    void modelIsColumnMajorInRowOrder()
    {
        opt::LinearModel m;
        m.addColumn(0, 1);
        m.addColumn(0, 1);
        m.addRow({}, {}, 0, 1);
        m.addRow({1, 0}, {5, 6}, 0, 1);
        m.addEntry(0, 1, 7); // row 0 of column 1, given after row 1
        m.addEntry(0, 0, 8);
        const auto cm = m.columnMajor();
        QCOMPARE(cm.start, (std::vector<int>{0, 2, 4}));
        QCOMPARE(cm.index, (std::vector<int>{0, 1, 0, 1}));
        QCOMPARE(cm.value, (std::vector<double>{8, 6, 7, 5}));
        QVERIFY(!m.hasIntegers());
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, m.addEntry(2, 0, 1.0));
    }

    void lpSolvesAndRestartsFromItsBasis()
    {
        opt::LinearProgram lp(smallLp());
        QCOMPARE(lp.solve(opt::LinearProgram::Method::Initial), opt::Status::Optimal);
        QVERIFY(std::abs(lp.value(0) - 1.6) < 1e-9);
        QVERIFY(std::abs(lp.value(1) - 1.2) < 1e-9);
        // A floor on x moves the optimum along the second row: x + y with 3x + y = 6 and x >= 1.8.
        lp.setColumnLower(0, 1.8);
        QCOMPARE(lp.solve(opt::LinearProgram::Method::Dual), opt::Status::Optimal);
        QVERIFY(std::abs(lp.value(0) - 1.8) < 1e-9);
        QVERIFY(std::abs(lp.value(1) - 0.6) < 1e-9);
        // Another objective from the same basis.
        lp.setObjective(1, 3);
        QCOMPARE(lp.solve(opt::LinearProgram::Method::Primal), opt::Status::Optimal);
        QVERIFY(std::abs(lp.value(1) - 0.6) < 1e-9); // x >= 1.8 still binds: y = min((4 - x) / 2, 6 - 3x)
        // No point meets both rows once x + 2y must reach 5 with x >= 1.8.
        lp.setRowLower(0, 5);
        QCOMPARE(lp.solve(opt::LinearProgram::Method::Dual), opt::Status::Infeasible);
        QVERIFY(lp.totalSolveS() >= lp.lastSolveS());
    }

    void barrierStopsInsideTheOptimalFace()
    {
        // max x + y s.t. x + y <= 1: every point of the segment is optimal; the interior point method without
        // crossover stops inside it, a simplex at a vertex.
        opt::LinearModel m;
        m.setSense(opt::Sense::Maximize);
        m.addColumn(0, 1, 1);
        m.addColumn(0, 1, 1);
        m.addRow({0, 1}, {1, 1}, -opt::kInfinity, 1);
        opt::LinearProgram lp(m);
        QCOMPARE(lp.solve(opt::LinearProgram::Method::BarrierNoCrossover), opt::Status::Optimal);
        QVERIFY(std::abs(lp.value(0) + lp.value(1) - 1) < 1e-6);
        QVERIFY(lp.value(0) > 0.1 && lp.value(1) > 0.1);
    }

    void iterationLimitIsACountNotATime()
    {
        opt::LinearProgram lp(smallLp(), opt::Limits{1, 0});
        QCOMPARE(lp.solve(opt::LinearProgram::Method::Primal), opt::Status::IterationLimit);
        QCOMPARE(std::string(opt::toString(opt::Status::IterationLimit)), std::string("iteration limit"));
    }

    void milpFindsTheIntegerOptimum()
    {
        // max 5a + 4b + 3c  s.t.  2a + 3b + c <= 5,  4a + b + 2c <= 11,  3a + 4b + 2c <= 8,  a, b, c >= 0 integer:
        // the LP optimum is (2, 0, 1) already; with c <= 0.5 the integer optimum moves to (2, 0, 0), 10.
        opt::LinearModel m;
        m.setSense(opt::Sense::Maximize);
        for (const double obj : {5.0, 4.0, 3.0})
            m.addColumn(0, opt::kInfinity, obj, true);
        m.addRow({0, 1, 2}, {2, 3, 1}, -opt::kInfinity, 5);
        m.addRow({0, 1, 2}, {4, 1, 2}, -opt::kInfinity, 11);
        m.addRow({0, 1, 2}, {3, 4, 2}, -opt::kInfinity, 8);
        QVERIFY(m.hasIntegers());
        auto r = opt::solveMilp(m);
        QCOMPARE(r.status, opt::Status::Optimal);
        QCOMPARE(r.values.size(), std::size_t(3));
        QVERIFY(std::abs(r.objective - 13) < 1e-9);
        QCOMPARE(std::lround(r.values[0]), 2L);
        QCOMPARE(std::lround(r.values[2]), 1L);

        // Fractional relaxation: 2a + 2b <= 3 with a, b integer has LP optimum 1.5, integer optimum 1.
        opt::LinearModel f;
        f.setSense(opt::Sense::Maximize);
        f.addColumn(0, 1, 1, true);
        f.addColumn(0, 1, 1, true);
        f.addRow({0, 1}, {2, 2}, -opt::kInfinity, 3);
        r = opt::solveMilp(f);
        QCOMPARE(r.status, opt::Status::Optimal);
        QVERIFY(std::abs(r.objective - 1) < 1e-9);

        // Infeasible: a + b = 1.5 has no integer point.
        opt::LinearModel g;
        g.addColumn(0, 2, 1, true);
        g.addColumn(0, 2, 1, true);
        g.addRow({0, 1}, {1, 1}, 1.5, 1.5);
        QCOMPARE(opt::solveMilp(g).status, opt::Status::Infeasible);
    }

    void milpStartsFromTheCallersIncumbent()
    {
        // A 0/1 knapsack, max sum v x s.t. sum w x <= 10: the incumbent callback sees the root LP (fractional
        // here: its bound 12.6 is above the integer optimum 12) and its assignment is CBC's first solution, so a
        // one-node limit returns at least it. The bound is never below the objective found.
        const std::vector<double> v{6, 5, 4, 3}, w{5, 4, 3, 3};
        opt::LinearModel m;
        m.setSense(opt::Sense::Maximize);
        for (std::size_t i = 0; i < v.size(); ++i)
            m.addColumn(0, 1, v[i], true);
        m.addRow({0, 1, 2, 3}, w, -opt::kInfinity, 10);
        opt::Limits oneNode;
        oneNode.maxNodes = 1;
        std::vector<double> seenLp;
        opt::MilpOptions options;
        options.strongBranching = 0;
        options.incumbent = [&](const std::vector<double>& lp) {
            seenLp = lp;
            return std::vector<double>{1, 0, 0, 1}; // 9: feasible, not optimal
        };
        const auto r = opt::solveMilp(m, oneNode, options);
        QCOMPARE(seenLp.size(), std::size_t(4));
        double lpValue = 0;
        for (std::size_t i = 0; i < v.size(); ++i)
            lpValue += v[i] * seenLp[i];
        QVERIFY(std::abs(lpValue - 12.6) < 1e-6);
        QVERIFY(!r.values.empty());
        QVERIFY(r.objective >= 9 - 1e-9);
        QVERIFY(r.bound >= r.objective - 1e-9);
        // Without a limit the start changes nothing but the search: the optimum, items 1, 2 and 3.
        const auto full = opt::solveMilp(m, {}, options);
        QCOMPARE(full.status, opt::Status::Optimal);
        QVERIFY(std::abs(full.objective - 12) < 1e-9);
        QVERIFY(std::abs(full.bound - 12) < 1e-6);
        // An empty answer means "no start": the solve runs as without a callback.
        options.incumbent = [](const std::vector<double>&) { return std::vector<double>{}; };
        QVERIFY(std::abs(opt::solveMilp(m, {}, options).objective - 12) < 1e-9);
    }

    void solverSecondsArePerThread()
    {
        const double before = opt::solverSecondsOnThisThread();
        double other = -1;
        std::thread t([&other] {
            opt::LinearProgram lp(smallLp());
            lp.solve(opt::LinearProgram::Method::Initial);
            other = opt::solverSecondsOnThisThread();
        });
        t.join();
        QVERIFY(other > 0);
        QCOMPARE(opt::solverSecondsOnThisThread(), before); // the other thread's solve is not ours
        opt::LinearProgram lp(smallLp());
        lp.solve(opt::LinearProgram::Method::Initial);
        QVERIFY(opt::solverSecondsOnThisThread() > before);
        QVERIFY(std::abs(opt::solverSecondsOnThisThread() - before - lp.lastSolveS()) < 1e-3);
    }

    void decisionsRecordTheirSolverTime()
    {
        // An LP policy spends part of each round's decision in CLP; FIFO solves nothing.
        const auto w = test::prepare(test::makeCluster({{"v100", 1, 4}, {"k80", 1, 2}}),
                                     {test::fixedJob("a", 0, 1, 3000), test::fixedJob("b", 0, 2, 3000),
                                      test::fixedJob("c", 100, 1, 2000, "k80")});
        auto lp = sched::makePolicy("max_min_fairness_perf");
        const auto r = sim::simulate(w, *lp, 1);
        double solver = 0;
        for (const auto& d : r.decisions) {
            QVERIFY(d.solverS >= 0);
            QVERIFY(d.solverS <= d.wallS);
            solver += d.solverS;
        }
        QVERIFY(solver > 0);
        auto fifo = sched::makePolicy("fifo");
        for (const auto& d : sim::simulate(w, *fifo, 1).decisions)
            QCOMPARE(d.solverS, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestOpt)
#include "test_opt.moc"
