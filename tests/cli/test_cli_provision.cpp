#include "test_support.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

namespace {

/** LLaMA-1.3B (Table IV shape) on a small slice of the paper's cluster, so Optimal runs quickly. */
std::vector<std::string> provisionArgs(const std::string& strategy, const std::string& slo = "20000")
{
    const std::string dir = sourcePath("docs/experiments/espresso/");
    return {cliPath(),      "provision",
            "--model",      dir + "llama-1.3b.json",
            "--seq",        "2048",
            "--batch",      "16",
            "--iterations", "100",
            "--slo-s",      slo,
            "--gpus",       "a6000:2,a30:2,rtx3090:4,a4000:4",
            "--catalog",    dir + "juchi-gpus.json",
            "--prices",     "a6000:6,a30:4,rtx3090:2.5,a4000:2",
            "--strategy",   strategy,
            "--json"};
}

nlohmann::json run(const std::vector<std::string>& args)
{
    const auto r = runCommand(args);
    if (r.exitCode != 0)
        qWarning("%s", r.err.c_str());
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

} // namespace

class TestCliProvision : public QObject
{
    Q_OBJECT
private slots:
    void allStrategiesAnswerWithTheDocumentedKeys()
    {
        double optimal = 0;
        std::vector<double> costs;
        for (const char* s : {"optimal", "espresso", "sia+", "whale+", "hph+"}) {
            const auto j = run(provisionArgs(s));
            QVERIFY2(j.is_object(), s);
            for (const char* key :
                 {"feasible", "gpus", "dp", "pp", "stages", "iteration_s", "total_s", "cost", "search"})
                QVERIFY2(j.contains(key), key);
            for (const char* key : {"expanded", "pruned_bp", "pruned_cp", "pruned_tcp", "wall_s"})
                QVERIFY2(j["search"].contains(key), key);
            QVERIFY2(j["feasible"].get<bool>(), s);
            int layers = 0, gpus = 0;
            for (const auto& st : j["stages"])
                layers += st["layers"].get<int>();
            for (const auto& [name, n] : j["gpus"].items())
                gpus += n.get<int>();
            QCOMPARE(layers, 26);
            QCOMPARE(static_cast<int>(j["stages"].size()), j["pp"].get<int>());
            QCOMPARE(gpus, j["dp"].get<int>() * j["pp"].get<int>());
            QVERIFY(j["total_s"].get<double>() <= 20000);
            const double cost = j["cost"].get<double>();
            // cost = z * T_iter * sum(c_t n_t) / 3600
            if (std::string(s) == "optimal")
                optimal = cost;
            else if (std::string(s) != "sia+") // Sia+ searches outside BP's pipeline sizes
                QVERIFY2(cost >= optimal * (1 - 1e-9), s);
            costs.push_back(cost);
        }
        QVERIFY(optimal > 0);
    }

    void infeasibleSloIsAnAnswer()
    {
        for (const char* s : {"espresso", "sia+"}) {
            const auto j = run(provisionArgs(s, "1"));
            QVERIFY2(j.is_object(), s);
            QVERIFY(!j["feasible"].get<bool>());
            QVERIFY(j["total_s"].get<double>() > 1);
            QVERIFY(j.contains("reason"));
        }
    }

    void optimalAnswersTheFullClusterAndRefusesATinyBudget()
    {
        // LLaMA-3B on all 56 GPUs of the paper at its Table IV SLO: Optimal answers (it used to refuse).
        const std::string dir = sourcePath("docs/experiments/espresso/");
        std::vector<std::string> args = {cliPath(),      "provision",
                                         "--model",      dir + "llama-3b.json",
                                         "--seq",        "4096",
                                         "--batch",      "32",
                                         "--iterations", "100",
                                         "--slo-s",      "3700",
                                         "--gpus",       "a6000:8,a30:16,rtx3090:16,a4000:16",
                                         "--catalog",    dir + "juchi-gpus.json",
                                         "--efficiency", "a30:0.43,a6000:0.47,a4000:0.55,rtx3090:0.45",
                                         "--json",       "--strategy"};
        auto optimal = args;
        optimal.push_back("optimal");
        auto espresso = args;
        espresso.push_back("espresso");
        const auto o = run(optimal);
        const auto e = run(espresso);
        QVERIFY(o.is_object() && e.is_object());
        QVERIFY(o["feasible"].get<bool>());
        QVERIFY(o["cost"].get<double>() <= e["cost"].get<double>() * (1 + 1e-9));
        // A budget below what the surviving stage orders need is refused up front, with exit 2.
        optimal.push_back("--optimal-budget-s");
        optimal.push_back("0");
        const auto r = runCommand(optimal);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("optimal") != std::string::npos && r.err.find("survive") != std::string::npos,
                 r.err.c_str());
    }

    void pruningSwitchesChangeTheSearchNotTheContract()
    {
        auto args = provisionArgs("espresso");
        const auto on = run(args);
        for (const char* flag : {"--no-bp", "--no-cp", "--no-tcp"})
            args.push_back(flag);
        const auto off = run(args);
        QVERIFY(on.is_object() && off.is_object());
        QCOMPARE(off["search"]["pruned_bp"].get<long long>(), 0LL);
        QCOMPARE(off["search"]["pruned_cp"].get<long long>(), 0LL);
        QCOMPARE(off["search"]["pruned_tcp"].get<long long>(), 0LL);
        QVERIFY(off["search"]["expanded"].get<long long>() > on["search"]["expanded"].get<long long>());
        QVERIFY(off["cost"].get<double>() <= on["cost"].get<double>() * (1 + 1e-9));
    }

    void humanOutputShowsStages()
    {
        auto args = provisionArgs("espresso");
        args.pop_back();
        const auto r = runCommand(args);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("stage") != std::string::npos);
        QVERIFY(r.out.find("plan meets the SLO") != std::string::npos);
    }

    void badInputExitsTwo()
    {
        auto unknown = provisionArgs("espresso");
        unknown[13] = "a6000:2,h9000:4";
        auto r = runCommand(unknown);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("h9000") != std::string::npos);

        auto negative = provisionArgs("espresso");
        negative[13] = "a6000:-2";
        r = runCommand(negative);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("--gpus") != std::string::npos);

        r = runCommand(provisionArgs("greedy"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("strategy") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliProvision)
#include "test_cli_provision.moc"
