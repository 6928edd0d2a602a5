// Unit-level checks of the bad-input rules (docs/reliability.md, "Bad input") that the CLI corpus
// (tests/cli/test_bad_input_corpus.cpp) cannot time or see: message cutting and the cost of "did you mean".
#include "test_support.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/scenario.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

using namespace orrery;

class TestBadInput : public QObject
{
    Q_OBJECT

private slots:
    void closestMatchIsBoundedByLength()
    {
        const std::string huge(1 << 20, 'x');
        std::vector<std::string> candidates;
        for (int i = 0; i < 20; ++i)
            candidates.push_back("candidate" + std::to_string(i));
        const auto start = std::chrono::steady_clock::now();
        QCOMPARE(io::closestMatch(huge, candidates), std::string());
        QCOMPARE(io::closestMatch(std::string(5000, 'y'), candidates), std::string());
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // Was about 7 s per megabyte per candidate; a bounded comparison takes microseconds.
        QVERIFY2(s < 0.5, std::to_string(s).c_str());
        // Typos still find their match.
        QCOMPARE(io::closestMatch("polices", {"policies", "options"}), std::string("policies"));
        QCOMPARE(io::closestMatch("clusterr", {"cluster", "workload"}), std::string("cluster"));
    }

    void messagesCutAtCharacterBoundaries()
    {
        // 36 ASCII bytes, then two-byte characters: byte 37 is the middle of one.
        // Built from parts rather than with operator+: GCC 12 at -O2 reports a false -Warray-bounds on a
        // temporary string plus a literal (GCC bug 105651), so fmt builds them.
        const std::string s = fmt::format("{}{}", std::string(36, 'a'), "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9");
        const std::string shown = io::describeJson(nlohmann::json(s));
        QCOMPARE(util::invalidUtf8At(shown), std::string::npos);
        QCOMPARE(shown, "\"" + std::string(36, 'a') + "...\"");
        const std::string field = fmt::format("{}\xE2\x82\xAC{}", std::string(59, 'b'), std::string(10, 'c'));
        QCOMPARE(util::invalidUtf8At(io::describeField(field)), std::string::npos);
        QCOMPARE(util::utf8Prefix("\xE2\x82\xAC", 2), std::string_view());
    }

    void errorsAreAlwaysUtf8()
    {
        const Error e("f.csv", "3: user", "bad value \"caf\xE9\"");
        QCOMPARE(util::invalidUtf8At(e.what()), std::string::npos);
        QVERIFY(std::string(e.what()).find("caf\\xE9") != std::string::npos);
        // Rendering it as JSON (scenario check --json) must not throw.
        QVERIFY(!nlohmann::json(e.message()).dump().empty());
    }

    void impossibleDatesAreRejected()
    {
        QVERIFY(!io::parseDateTime("2020-02-31 00:00:00"));
        QVERIFY(!io::parseDateTime("2019-02-29 00:00:00"));
        QVERIFY(!io::parseDateTime("0000-01-01 00:00:00"));
        QVERIFY(!io::parseDateTime("2017-04-31 12:00:00"));
        QVERIFY(io::parseDateTime("2020-02-29 00:00:00"));
        QVERIFY(io::parseDateTime("2017-12-31 23:59:59"));
    }

    void duplicateKeysNameBothLines()
    {
        try {
            io::parseJson("{\n  \"a\": {\n    \"k\": 1,\n    \"k\": 2\n  }\n}\n", "d.json");
            QFAIL("a duplicate key was accepted");
        } catch (const Error& e) {
            QCOMPARE(e.location(), std::string("a.k"));
            const std::string m = e.message();
            QVERIFY2(m.find("line 4") != std::string::npos && m.find("first at line 3") != std::string::npos,
                     m.c_str());
        }
        // The same key in different objects is fine.
        QVERIFY(io::parseJson(R"({"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]})", "ok.json").is_object());
    }

    void integersAreCheckedBeforeNarrowing()
    {
        for (const char* raw : {"4294967297", "18446744073709551615", "1e10", "4294967298.0"}) {
            const std::string text = std::string(R"({"format": "orrery-scenario", "version": 1,
                "cluster": {"nodes": [{"gpu": "v100", "count": )") +
                                     raw + R"(, "gpus_per_node": 4}]},
                "workload": {"jobs": [{"gpus": 1, "duration_s": 5}]}})";
            try {
                io::parseScenarioText(text, "n.json");
                QFAIL(raw);
            } catch (const Error& e) {
                QCOMPARE(e.location(), std::string("cluster.nodes[0].count"));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "test_bad_input.moc"
