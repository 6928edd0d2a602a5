// Policy parameters end to end: listed by `policies --json`, given with --policy, stored under their label.
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

using orrery::test::cliPath;
using orrery::test::runCommand;

class TestCliPolicyParams : public QObject
{
    Q_OBJECT

private slots:
    void policiesJsonListsEveryParameter()
    {
        const auto r = runCommand({cliPath(), "policies", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out);
        bool sawTiresias = false;
        for (const auto& p : doc["policies"]) {
            std::vector<std::string> names;
            for (const auto& param : p["params"]) {
                names.push_back(param["name"]);
                QVERIFY(param.contains("type") && param.contains("default") && param.contains("help"));
            }
            // Every policy takes the common parameters.
            QVERIFY(std::find(names.begin(), names.end(), "round_s") != names.end());
            QVERIFY(std::find(names.begin(), names.end(), "restart_penalty_s") != names.end());
            if (p["name"] == "tiresias") {
                sawTiresias = true;
                QCOMPARE(p["params"][0]["name"], nlohmann::json("queue_thresholds_s"));
                QCOMPARE(p["params"][0]["default"], nlohmann::json("3600,36000"));
                QCOMPARE(p["params"][0]["type"], nlohmann::json("number list"));
                QCOMPARE(p["presets"].size(), std::size_t(2));
                QCOMPARE(p["traits"]["preemptive"], nlohmann::json(true));
            }
            if (p["name"] == "sjf")
                QCOMPARE(p["traits"]["oracle"], nlohmann::json(true));
        }
        QVERIFY(sawTiresias);
    }

    void runsAreStoredAndFilteredByLabel()
    {
        QTemporaryDir dir;
        const std::string db = dir.filePath("runs.sqlite").toStdString();
        const auto r = runCommand({cliPath(), "simulate", "default", "--policy", "tiresias", "--policy",
                                   "tiresias:backfill_limit=0:preempt_same_queue=0", "--policy",
                                   "tiresias:backfill_limit=64", "--json", "--db", db});
        QCOMPARE(r.exitCode, 0);
        const auto out = nlohmann::json::parse(r.out);
        QCOMPARE(out["runs"][0]["policy"], nlohmann::json("tiresias"));
        QCOMPARE(out["runs"][1]["policy"], nlohmann::json("tiresias:backfill_limit=0:preempt_same_queue=false"));
        QCOMPARE(out["runs"][2]["policy"], nlohmann::json("tiresias")); // 64 is the default
        // Without backfill the 60 jobs queue longer.
        QVERIFY(out["runs"][1]["avg_queue_s"].get<double>() > out["runs"][0]["avg_queue_s"].get<double>());

        const auto all = runCommand({cliPath(), "runs", "list", "--db", db, "--policy", "tiresias", "--json"});
        QCOMPARE(all.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(all.out)["runs"].size(), std::size_t(3));
        const auto one = runCommand({cliPath(), "runs", "list", "--db", db, "--policy",
                                     "tiresias:backfill_limit=0:preempt_same_queue=false", "--json"});
        QCOMPARE(nlohmann::json::parse(one.out)["runs"].size(), std::size_t(1));
        // A name is not a prefix of another policy's name.
        const auto none = runCommand({cliPath(), "runs", "list", "--db", db, "--policy", "tire", "--json"});
        QCOMPARE(nlohmann::json::parse(none.out)["runs"].size(), std::size_t(0));
    }

    void badParametersAreBadInput()
    {
        const auto r = runCommand({cliPath(), "simulate", "default", "--policy", "tiresias:queue_thresholds_s=0,0"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, std::string("orrery-cli: --policy: policy tiresias parameter queue_thresholds_s: expected 1 to "
                                    "16 comma-separated number(s) in [0, 1000000000000], strictly increasing, got "
                                    "\"0,0\"\n"));
        const auto unknown = runCommand({cliPath(), "simulate", "default", "--policy", "fifo:backfill_limit=1"});
        QCOMPARE(unknown.exitCode, 2);
        QCOMPARE(unknown.err, std::string("orrery-cli: --policy: policy fifo has no parameter \"backfill_limit\"; it "
                                          "takes: round_s, restart_penalty_s, restart_model, load_time_s\n"));
    }
};

QTEST_GUILESS_MAIN(TestCliPolicyParams)
#include "test_cli_policy_params.moc"
