// `orrery-cli profile` and `--calibration`: the no-GPU answer, re-fitting a recorded profile, and a
// calibration changing what the estimator says about its GPU type.
#include "test_support.h"

#include "profile/device_probe.h"

#include <nlohmann/json.hpp>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

namespace {

std::string recorded()
{
    return sourcePath("data/calibration/h200-2026-11-26.json");
}

std::vector<std::string> throughputArgs()
{
    return {"throughput",  "--model", "gpt2-774m",    "--batch",    "8",           "--gpu", "h200",
            "--framework", "pytorch", "--flash-attn", "--autocast", "--optimizer", "adamw", "--json"};
}

double iterationS(const orrery::test::CommandResult& r)
{
    return nlohmann::json::parse(r.out).at("iteration_s").get<double>();
}

} // namespace

class TestCliProfile : public QObject
{
    Q_OBJECT
private slots:
    void withoutAGpuItExitsTwoAndSaysWhy()
    {
        if (orrery::profile::availability().usable())
            QSKIP("a CUDA device is present");
        const auto r = runCommand({cliPath(), "profile", "--quick"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.starts_with("orrery-cli profile: "), r.err.c_str());
        QVERIFY2(r.err.find("no GPU can be profiled") != std::string::npos ||
                     r.err.find("no CUDA support") != std::string::npos,
                 r.err.c_str());
        QVERIFY(r.out.empty());
    }

    void refitsARecordedProfile()
    {
        QTemporaryDir dir;
        const std::string out = dir.filePath("h200.json").toStdString();
        const auto r = runCommand({cliPath(), "profile", "--refit", recorded(), "-o", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("Catalog type: h200") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find("bf16") != std::string::npos && r.out.find("fp8") != std::string::npos);
        std::ifstream in(out);
        const nlohmann::json doc = nlohmann::json::parse(in);
        QCOMPARE(doc.at("format").get<std::string>(), std::string("orrery-calibration"));
        QCOMPARE(doc.at("gpu").at("name").get<std::string>(), std::string("h200"));
        QVERIFY(doc.at("gpu").contains("curves"));
    }

    void calibrationChangesTheEstimate()
    {
        const auto plain = runCommand([] {
            std::vector<std::string> a{cliPath()};
            for (const auto& s : throughputArgs())
                a.push_back(s);
            return a;
        }());
        QCOMPARE(plain.exitCode, 0);
        std::vector<std::string> calibrated{cliPath(), "--calibration", recorded()};
        for (const auto& s : throughputArgs())
            calibrated.push_back(s);
        const auto withFile = runCommand(calibrated);
        QCOMPARE(withFile.exitCode, 0);
        QVERIFY(iterationS(withFile) != iterationS(plain));

        // The environment variable does the same.
        std::vector<std::string> viaEnv{"env", "ORRERY_CALIBRATION=" + recorded(), cliPath()};
        for (const auto& s : throughputArgs())
            viaEnv.push_back(s);
        const auto withEnv = runCommand(viaEnv);
        QCOMPARE(withEnv.exitCode, 0);
        QCOMPARE(iterationS(withEnv), iterationS(withFile));
    }

    void badCalibrationFileIsBadInput()
    {
        QTemporaryDir dir;
        const std::string bad = dir.filePath("bad.json").toStdString();
        std::ofstream(bad) << R"({"format": "orrery-gpus"})";
        std::vector<std::string> args{cliPath(), "--calibration", bad};
        for (const auto& s : throughputArgs())
            args.push_back(s);
        const auto r = runCommand(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("bad.json: format: expected \"orrery-calibration\"") != std::string::npos, r.err.c_str());
        args[2] = dir.filePath("missing.json").toStdString();
        const auto missing = runCommand(args);
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.find("missing.json") != std::string::npos, missing.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "test_cli_profile.moc"
