// core/opt: the LP/MILP helper over COIN-OR CLP and CBC (docs/opt.md): models, warm-started LPs, MILPs, count limits,
// and the per-thread solver clock the engine records per decision.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "opt/linear_model.h"
#include "opt/linear_program.h"
#include "opt/milp.h"
#include "opt/solver_clock.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <cmath>
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

} // namespace

class TestOpt : public QObject
{
    Q_OBJECT
private slots:
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
