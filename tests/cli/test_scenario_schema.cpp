#include "test_support.h"

#include <QDirIterator>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

// The shipped JSON Schema must accept every scenario Orrery writes and ships,
// and reject what the loader rejects, so external tools can rely on it.
static const char* kValidator = R"PY(
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(sys.stdin) if path == "-" else json.load(open(path))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    print(path, "valid" if not errors else "invalid: " + errors[0].message)
    bad += bool(errors)
sys.exit(bad)
)PY";

class TestScenarioSchema : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (runCommand({"python3", "-c", "import jsonschema"}).exitCode != 0)
            QSKIP("python3-jsonschema is not installed");
    }

    void shippedScenariosMatchSchema()
    {
        std::vector<std::string> argv{"python3", "-c", kValidator, sourcePath("data/scenario.schema.json")};
        QDirIterator it(QString::fromStdString(sourcePath("data/scenarios")), {"*.json"});
        while (it.hasNext())
            argv.push_back(it.next().toStdString());
        QVERIFY(argv.size() > 4);
        const auto r = runCommand(argv);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
    }

    void writtenScenarioMatchesSchema()
    {
        const auto shown = runCommand({cliPath(), "scenario", "show", "--json", "default"});
        QCOMPARE(shown.exitCode, 0);
        const auto r =
            runCommand({"python3", "-c", kValidator, sourcePath("data/scenario.schema.json"), "-"}, shown.out);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
    }

    void schemaRejectsUnknownKeysAndNegativeCounts()
    {
        const std::string bad = R"({"format":"orrery-scenario","version":1,
            "cluster":{"nodes":[{"gpu":"v100","count":-2,"gpus_per_node":4}]},
            "workload":{"jobs":[{"gpus":1,"duration_s":10,"colour":"red"}]}})";
        const auto r = runCommand({"python3", "-c", kValidator, sourcePath("data/scenario.schema.json"), "-"}, bad);
        QCOMPARE(r.exitCode, 1);
    }

    /**
     * Every integer cap of core/io/limits.h is a `maximum` in the schema: the schema accepts each field at
     * its cap and rejects one more, and `scenario check` refuses that same value naming the field, so the
     * schema and the reader agree at the boundary.
     */
    void schemaMaximumsMatchTheReadersCaps()
    {
        using nlohmann::json;
        const auto shown = runCommand({cliPath(), "scenario", "show", "--json", "default"});
        QCOMPARE(shown.exitCode, 0);
        const json base = json::parse(shown.out);
        const json model = {{"name", "tiny"}, {"vocab", 1000}, {"hidden", 64}, {"layers", 2}, {"heads", 2}};
        const json fixedJob = {{"id", "fixed"}, {"gpus", 1}, {"duration_s", 60}};
        const json trace = {{"format", "gavel"}, {"path", "jobs.trace"}, {"limit", 10}};
        const json generator = {
            {"jobs", 10}, {"seed", 1}, {"mix", {{{"gpus", {1}}}, {{"model", "tiny"}, {"batches", {8}}}}}};
        struct Case
        {
            std::string pointer; // the field set to the cap, then to the cap + 1
            long long cap;
            std::function<void(json&)> setUp; // what the document needs besides the default scenario
        };
        const long long intMax = 2147483647;
        const auto withModel = [&](json& d) { d["workload"]["models"] = json::array({model}); };
        const auto withFixedJob = [&](json& d) { d["workload"]["jobs"] = json::array({fixedJob}); };
        const auto withTrace = [&](json& d) { d["workload"] = {{"trace", trace}}; };
        const auto withGenerator = [&](json& d) { d["workload"] = {{"models", {model}}, {"generator", generator}}; };
        const auto nothing = [](json&) {};
        const std::vector<Case> cases = {
            {"/cluster/nodes/0/count", 100000, nothing},
            {"/cluster/nodes/0/gpus_per_node", 64, nothing},
            {"/workload/models/0/vocab", intMax, withModel},
            {"/workload/models/0/hidden", intMax, withModel},
            {"/workload/models/0/layers", intMax, withModel},
            {"/workload/models/0/heads", intMax, withModel},
            {"/workload/models/0/kv_heads", intMax, withModel},
            {"/workload/models/0/ffn_hidden", intMax, withModel},
            {"/workload/models/0/positions", intMax, withModel},
            {"/workload/models/0/seq", intMax, withModel},
            {"/workload/jobs/0/batch", intMax, nothing},
            {"/workload/jobs/0/micro_batch", intMax, nothing},
            {"/workload/jobs/0/seq", intMax, nothing},
            {"/workload/jobs/0/gpus", 65536, withFixedJob},
            {"/workload/trace/limit", 2000000, withTrace},
            {"/workload/generator/jobs", 2000000, withGenerator},
            {"/workload/generator/seed", intMax, withGenerator},
            {"/workload/generator/mix/0/gpus/0", 65536, withGenerator},
            {"/workload/generator/mix/1/batches/0", intMax, withGenerator},
            {"/options/seed", 9223372036854775807LL, nothing},
        };
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::vector<std::string> argv{"python3", "-c", kValidator, sourcePath("data/scenario.schema.json")};
        std::vector<std::string> over;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            for (const bool beyond : {false, true}) {
                json doc = base;
                cases[i].setUp(doc);
                const json::json_pointer at(cases[i].pointer);
                QVERIFY2(doc.contains(at.parent_pointer()), cases[i].pointer.c_str());
                if (beyond)
                    doc[at] = static_cast<unsigned long long>(cases[i].cap) + 1;
                else
                    doc[at] = cases[i].cap;
                const std::string file =
                    dir.filePath(QStringLiteral("%1-%2.json").arg(i).arg(beyond ? "over" : "cap")).toStdString();
                std::ofstream(file) << doc.dump(1);
                argv.push_back(file);
                if (beyond)
                    over.push_back(file);
            }
        }
        const auto r = runCommand(argv);
        QCOMPARE(r.exitCode, static_cast<int>(cases.size())); // one invalid document per case
        std::istringstream lines(r.out);
        for (std::size_t i = 0; i < cases.size(); ++i) {
            std::string atCap, beyondCap;
            std::getline(lines, atCap);
            std::getline(lines, beyondCap);
            QVERIFY2(atCap.find(" valid") != std::string::npos, (cases[i].pointer + ": " + atCap).c_str());
            QVERIFY2(beyondCap.find(" invalid: ") != std::string::npos &&
                         beyondCap.find("maximum") != std::string::npos,
                     (cases[i].pointer + ": " + beyondCap).c_str());

            const auto check = runCommand({cliPath(), "scenario", "check", over[i]});
            // The field's name (for an array item, the array's): the reader's message names it with the value.
            std::string field = cases[i].pointer;
            while (std::isdigit(static_cast<unsigned char>(field[field.rfind('/') + 1])))
                field.erase(field.rfind('/'));
            field = field.substr(field.rfind('/') + 1);
            QVERIFY2(check.exitCode == 2, (cases[i].pointer + ": " + check.out + check.err).c_str());
            QVERIFY2(check.err.find(std::to_string(static_cast<unsigned long long>(cases[i].cap) + 1)) !=
                         std::string::npos,
                     (cases[i].pointer + ": " + check.err).c_str());
            QVERIFY2(check.err.find(field) != std::string::npos, (cases[i].pointer + ": " + check.err).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestScenarioSchema)
#include "test_scenario_schema.moc"
