#include "test_support.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

namespace {

nlohmann::json runJson(const std::vector<std::string>& args, int expectedExit = 0)
{
    std::vector<std::string> argv{cliPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--json");
    const auto r = runCommand(argv);
    if (r.exitCode != expectedExit)
        qWarning("exit %d: %s", r.exitCode, r.err.c_str());
    return r.exitCode == expectedExit ? nlohmann::json::parse(r.out) : nlohmann::json();
}

} // namespace

class TestCliEstimate : public QObject
{
    Q_OBJECT
private slots:
    void memoryFrenzyReproducesThePaper()
    {
        const auto j = runJson({"memory", "--model", "gpt2-7b", "--batch", "2", "--seq", "1024", "--dp", "2", "--tp",
                                "4", "--mode", "frenzy", "--gpu", "a100-40gb-sxm"});
        QVERIFY(!j.is_null());
        const double gib = 1024.0 * 1024 * 1024;
        QVERIFY(std::abs(j["total_gib"].get<double>() * gib - 36.740e9) < 1e6);
        QCOMPARE(j["fits"].get<bool>(), true);
        QVERIFY(std::abs(j["capacity_gib"].get<double>() * gib - 40e9) < 1);
        for (const char* key : {"weights_gib", "gradients_gib", "optimizer_gib", "activations_gib", "overhead_gib"})
            QVERIFY2(j.contains(key), key);
    }

    void memoryFullBreakdownAddsUp()
    {
        const auto j = runJson({"memory", "--model", "llama2-7b", "--batch", "8", "--micro-batch", "1", "--seq", "4096",
                                "--dp", "8", "--zero", "3", "--flash-attn", "--recompute", "selective"});
        QVERIFY(!j.is_null());
        const double sum = j["weights_gib"].get<double>() + j["gradients_gib"].get<double>() +
                           j["optimizer_gib"].get<double>() + j["activations_gib"].get<double>() +
                           j["overhead_gib"].get<double>();
        QVERIFY(std::abs(sum - j["total_gib"].get<double>()) < 1e-9);
        // ZeRO-3 over 8: 16 B x 6.74e9 / 8 ~ 12.6 GiB of states.
        const double states =
            j["weights_gib"].get<double>() + j["gradients_gib"].get<double>() + j["optimizer_gib"].get<double>();
        QVERIFY(states > 12 && states < 13);
        // --autocast: fp32 weights (4 B per parameter instead of 2).
        const auto half = runJson({"memory", "--model", "bert-large", "--batch", "4", "--precision", "fp16"});
        const auto amp =
            runJson({"memory", "--model", "bert-large", "--batch", "4", "--precision", "fp16", "--autocast"});
        QVERIFY(std::abs(amp["weights_gib"].get<double>() / half["weights_gib"].get<double>() - 2) < 1e-9);
        // --fp32-grads: 4 B of gradient per parameter instead of 2; meaningless with fp32 training.
        const auto g32 = runJson({"memory", "--model", "bert-large", "--batch", "4", "--fp32-grads"});
        const auto g16 = runJson({"memory", "--model", "bert-large", "--batch", "4"});
        QVERIFY(std::abs(g32["gradients_gib"].get<double>() / g16["gradients_gib"].get<double>() - 2) < 1e-9);
        QVERIFY(g16["allocated_gib"].get<double>() < g16["reserved_gib"].get<double>());
        // A model file works like a library name.
        const QString path = QDir::temp().filePath("orrery_cli_model.json");
        {
            std::ofstream out(path.toStdString());
            out << R"({"name":"tiny","vocab":32000,"hidden":512,"layers":4,"heads":8,"seq":256})";
        }
        const auto f = runJson({"memory", "--model", path.toStdString(), "--batch", "4"});
        QVERIFY(!f.is_null());
        QCOMPARE(f["model"].get<std::string>(), std::string("tiny"));
        QVERIFY(f["total_gib"].get<double>() > 0.5);
        QFile::remove(path);
    }

    void throughputReportsAllKeys()
    {
        const auto j =
            runJson({"throughput", "--model", "gpt3-175b", "--batch", "1536", "--seq", "2048", "--dp", "12", "--tp",
                     "8", "--pp", "8", "--micro-batch", "1", "--recompute", "full", "--gpu", "a100-80gb-sxm"});
        QVERIFY(!j.is_null());
        for (const char* key : {"iteration_s", "samples_per_s", "tokens_per_s", "tflops_per_gpu", "mfu"})
            QVERIFY2(j.contains(key) && j[key].get<double>() > 0, key);
        QVERIFY(std::abs(j["samples_per_s"].get<double>() * j["iteration_s"].get<double>() - 1536) < 1e-6);
        QVERIFY(j["mfu"].get<double>() < 1);
    }

    void planListsBestFirst()
    {
        const auto j = runJson({"plan", "--model", "gpt2-7b", "--batch", "2", "--seq", "1024", "--mode", "frenzy",
                                "--gpus", "a100-40gb-sxm:16"});
        QVERIFY(!j.is_null());
        const auto& plans = j["plans"];
        QVERIFY(plans.size() >= 2);
        QCOMPARE(plans[0]["gpu"].get<std::string>(), std::string("a100-40gb-sxm"));
        QCOMPARE(plans[0]["count"].get<int>(), 8);
        QCOMPARE(plans[0]["dp"].get<int>(), 2);
        QCOMPARE(plans[0]["tp"].get<int>(), 4);
        QCOMPARE(plans[0]["pp"].get<int>(), 1);
        for (const char* key : {"memory_gib", "samples_per_s", "usd_per_hour"})
            QVERIFY2(plans[0].contains(key), key);
        for (const auto& p : plans)
            QVERIFY(p["count"].get<int>() <= 16);
    }

    void planOnAScenarioCluster()
    {
        const auto j = runJson({"plan", "--model", "gpt2-1.5b", "--batch", "16", "--seq", "1024", "--cluster",
                                sourcePath("data/scenarios/default.json")});
        QVERIFY(!j.is_null());
        QVERIFY(!j["plans"].empty());
        const auto show = runJson({"scenario", "check", sourcePath("data/scenarios/default.json")});
        const auto& byType = show["summary"]["gpus_by_type"];
        for (const auto& p : j["plans"]) {
            const std::string gpu = p["gpu"].get<std::string>();
            QVERIFY2(byType.contains(gpu), gpu.c_str());
            QVERIFY(p["count"].get<int>() <= byType[gpu].get<int>());
        }
    }

    void badInputNamesTheOption()
    {
        auto r = runCommand({cliPath(), "memory", "--model", "gpt2-124m", "--batch", "8", "--zero", "5"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("--zero") != std::string::npos);
        r = runCommand({cliPath(), "memory", "--model", "gpt2-124m", "--batch", "8", "--recompute", "some"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("--recompute: expected one of none, selective, full") != std::string::npos);
        r = runCommand(
            {cliPath(), "memory", "--model", "gpt2-124m", "--batch", "8", "--precision", "fp32", "--fp32-grads"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("--fp32-grads: only meaningful with bf16 or fp16 precision") != std::string::npos);
        // Layout checks are core's (estimate::checkLayout), each error renamed to the option at fault.
        r = runCommand({cliPath(), "memory", "--model", "gpt2-124m", "--batch", "8", "--dp", "2", "--ep", "2"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--ep: expert parallelism (2) needs a mixture-of-experts model; 'gpt2-124m' is dense") !=
                     std::string::npos,
                 r.err.c_str());
        r = runCommand(
            {cliPath(), "memory", "--model", "gpt2-124m", "--batch", "8", "--pp", "2", "--virtual-stages", "5"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--virtual-stages: the model's 12 layers do not split") != std::string::npos,
                 r.err.c_str());
        r = runCommand({cliPath(), "throughput", "--model", "gpt2-124m", "--batch", "8", "--gpu", "a100-40"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("did you mean") != std::string::npos);
        r = runCommand({cliPath(), "plan", "--model", "gpt2-124m", "--batch", "8", "--gpus", "v100:x"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("--gpus") != std::string::npos);
        const QString path = QDir::temp().filePath("orrery_cli_badmodel.json");
        {
            std::ofstream out(path.toStdString());
            out << R"({"name":"bad","vocab":32000,"hidden":500,"layers":4,"heads":8})";
        }
        r = runCommand({cliPath(), "memory", "--model", path.toStdString(), "--batch", "4"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("heads") != std::string::npos);
        QFile::remove(path);
    }
};

QTEST_GUILESS_MAIN(TestCliEstimate)
#include "test_cli_estimate.moc"
