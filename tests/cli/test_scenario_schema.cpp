#include "test_support.h"

#include <QDirIterator>

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
};

QTEST_GUILESS_MAIN(TestScenarioSchema)
#include "test_scenario_schema.moc"
