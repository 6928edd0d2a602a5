#include "test_support.h"

#include <nlohmann/json.hpp>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

class TestCliFoundation : public QObject
{
    Q_OBJECT
private slots:
    void helpListsCommands()
    {
        const auto r = runCommand({cliPath(), "--help"});
        QCOMPARE(r.exitCode, 0);
        for (const char* cmd : {"scenario", "gpus", "models"})
            QVERIFY2(r.out.find(cmd) != std::string::npos, cmd);
        QVERIFY(r.out.find("not implemented") == std::string::npos);
    }

    void checkValidScenario()
    {
        const auto r = runCommand({cliPath(), "scenario", "check", sourcePath("data/scenarios/default.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("valid (6 nodes, 44 GPUs, 60 jobs)") != std::string::npos);
    }

    void checkInvalidScenario()
    {
        const QString path = QDir::temp().filePath("orrery_cli_bad.json");
        {
            std::ofstream out(path.toStdString());
            out << R"({"format":"orrery-scenario","version":1,
                "cluster":{"nodes":[{"gpu":"v100","count":1,"gpus_per_node":4},{"gpu":"k80","count":-2,"gpus_per_node":4}]},
                "workload":{"jobs":[{"gpus":1,"duration_s":10}]}})";
        }
        const auto r = runCommand({cliPath(), "scenario", "check", path.toStdString()});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(QString::fromStdString(r.err).trimmed(),
                 QString("orrery_cli_bad.json: cluster.nodes[1].count: expected a positive integer, got -2"));
        const auto j = runCommand({cliPath(), "scenario", "check", "--json", path.toStdString()});
        QCOMPARE(j.exitCode, 2);
        const auto doc = nlohmann::json::parse(j.out);
        QCOMPARE(doc["valid"].get<bool>(), false);
        QCOMPARE(doc["errors"][0]["path"].get<std::string>(), std::string("cluster.nodes[1].count"));
        QFile::remove(path);
    }

    void missingFileIsBadInput()
    {
        const auto r = runCommand({cliPath(), "scenario", "check", "/nonexistent.json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("/nonexistent.json: cannot open file") != std::string::npos);
    }

    void unknownOptionIsBadInput() { QCOMPARE(runCommand({cliPath(), "gpus", "--jsn"}).exitCode, 2); }

    void gpusAndModelsAsJson()
    {
        const auto g = runCommand({cliPath(), "gpus", "--json"});
        QCOMPARE(g.exitCode, 0);
        const auto gpus = nlohmann::json::parse(g.out)["gpus"];
        QVERIFY(gpus.size() >= 25);
        QVERIFY(gpus[0].contains("memory_gib"));
        const auto m = runCommand({cliPath(), "models", "--json"});
        QCOMPARE(m.exitCode, 0);
        const auto models = nlohmann::json::parse(m.out)["models"];
        QVERIFY(models.size() >= 19);
        bool found = false;
        for (const auto& model : models)
            found |= model["name"] == "llama2-7b" && model["params"] == 6738415616LL;
        QVERIFY(found);
    }

    void showSummarisesDefault()
    {
        const auto r = runCommand({cliPath(), "scenario", "show", "default"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("44 GPUs on 6 nodes") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliFoundation)
#include "test_cli_foundation.moc"
