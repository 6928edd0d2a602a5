#include "test_support.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

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

    void everyCommandHasItsHelp()
    {
        // main() registers only the command named on the command line (cli.h, registerCommands): each command's
        // help must come out whole, as when every command is registered, and the main help must list them all.
        const auto all = runCommand({cliPath(), "--help"});
        QCOMPARE(all.exitCode, 0);
        const std::size_t list = all.out.find("Subcommands:");
        QVERIFY(list != std::string::npos);
        std::istringstream lines(all.out.substr(list));
        std::string line;
        std::getline(lines, line);
        int commands = 0;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string command;
            if (!(words >> command))
                continue;
            const auto r = runCommand({cliPath(), command, "--help"});
            QVERIFY2(r.exitCode == 0, command.c_str());
            QVERIFY2(r.out.find(" " + command + " [OPTIONS]") != std::string::npos, (command + ": " + r.out).c_str());
            // Help asked before the command word (every command registered then) is that command's help too.
            QCOMPARE(runCommand({cliPath(), "--help", command}).out, r.out);
            ++commands;
        }
        QVERIFY2(commands >= 14, qPrintable(QString::number(commands)));
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
