// io::parseJson reads through simdjson when it can and through the strict nlohmann parser otherwise:
// both paths must give the same document, with the same number types, and the same errors.
#include "test_support.h"

#include "io/error.h"
#include "io/json_reader.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

using namespace orrery;
using nlohmann::json;

namespace {

/** Equal values of the same JSON types, all the way down (json's == treats 1, 1u and 1.0 as equal). */
bool sameTyped(const json& a, const json& b)
{
    if (a.type() != b.type())
        return false;
    if (a.is_object()) {
        if (a.size() != b.size())
            return false;
        for (auto it = a.begin(); it != a.end(); ++it)
            if (!b.contains(it.key()) || !sameTyped(it.value(), b.at(it.key())))
                return false;
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!sameTyped(a[i], b[i]))
                return false;
        return true;
    }
    if (a.is_number_float())
        return std::signbit(a.get<double>()) == std::signbit(b.get<double>()) && a.get<double>() == b.get<double>();
    return a == b;
}

/** Strings with what JSON must escape, multi-byte UTF-8 and plain ASCII. */
rc::Gen<std::string> genText()
{
    return rc::gen::map(rc::gen::container<std::vector<std::string>>(
                            rc::gen::element<std::string>("a", "Z", " ", "0", "\"", "\\", "/", "\n", "\t", "\x01",
                                                          "\x1f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80")),
                        [](const std::vector<std::string>& parts) {
                            std::string out;
                            for (const auto& p : parts)
                                out += p;
                            return out;
                        });
}

rc::Gen<json> genScalar()
{
    return rc::gen::oneOf(
        rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t v) { return json(v); }),
        rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t v) { return json(v); }),
        rc::gen::map(rc::gen::arbitrary<double>(), [](double v) { return std::isfinite(v) ? json(v) : json(0.5); }),
        rc::gen::map(genText(), [](std::string v) { return json(v); }),
        rc::gen::map(rc::gen::arbitrary<bool>(), [](bool v) { return json(v); }), rc::gen::just(json(nullptr)));
}

rc::Gen<json> genValue(int depth)
{
    if (depth == 0)
        return genScalar();
    return rc::gen::oneOf(genScalar(),
                          rc::gen::map(rc::gen::container<std::vector<json>>(genValue(depth - 1)),
                                       [](std::vector<json> items) { return json(items); }),
                          rc::gen::map(rc::gen::container<std::map<std::string, json>>(genText(), genValue(depth - 1)),
                                       [](std::map<std::string, json> members) { return json(members); }));
}

std::string errorOf(const std::string& text, io::KeepMember keep = nullptr)
{
    try {
        io::parseJson(text, "t.json", keep);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

} // namespace

class TestJsonReader : public QObject
{
    Q_OBJECT
private slots:
    void bothPathsReadTheSameDocument()
    {
        ORRERY_CHECK_PROPERTY("parseJson == nlohmann's parser, types included", [] {
            const json value = *rc::gen::resize(12, genValue(3));
            const std::string text = value.dump(*rc::gen::element(-1, 1));
            const json reference = json::parse(text);
            RC_ASSERT(sameTyped(io::parseJson(text, "t.json"), reference));
        });
    }

    void numberTypesFollowNlohmann()
    {
        const std::string text = R"({"u": 5, "z": 0, "n": -7, "m": -0, "big": 18446744073709551615,
            "f": 1.0, "e": 1e2, "nz": -0.0, "huge": 18446744073709551616, "s": "a\u00e9\n", "t": true, "x": null})";
        const json a = io::parseJson(text, "t.json");
        QVERIFY(sameTyped(a, json::parse(text)));
        QVERIFY(a["u"].is_number_unsigned());
        QVERIFY(a["n"].is_number_integer() && !a["n"].is_number_unsigned());
        QVERIFY(a["big"].is_number_unsigned());
        // Beyond 64 bits simdjson refuses; the strict parser reads a double, as before.
        QVERIFY(a["huge"].is_number_float());
        QCOMPARE(a["s"].get<std::string>(), std::string("a\xc3\xa9\n"));
    }

    void errorsAreLocatedWhicheverPathFailed()
    {
        // A duplicate key is valid JSON to simdjson: the strict parser must still refuse it.
        QVERIFY(errorOf("{\"a\": 1,\n \"a\": 2}").find("duplicate key \"a\" at line 2") != std::string::npos);
        QVERIFY(errorOf("{\"a\": [1, 2,\n 1e400]}").find("number out of range: 1e400 at line 2") != std::string::npos);
        QVERIFY(errorOf("{\"a\": [1, 2,\n }").find("parse error at line 2") != std::string::npos);
        QVERIFY(errorOf("{\"a\": \"\xff\"}").find("invalid UTF-8") != std::string::npos);
        QVERIFY(errorOf("{\"a\": 1} x").find("invalid JSON") != std::string::npos);
    }

    void membersNotKeptAreCheckedButDropped()
    {
        const auto topTwo = [](int depth, std::string_view key) { return depth < 2 || key == "keep"; };
        const std::string text = R"({"w": {"keep": 1, "drop": {"deep": [1, 2, {"x": 3}]}}, "v": {"drop": 2}})";
        const json a = io::parseJson(text, "t.json", topTwo);
        QCOMPARE(a.dump(), std::string(R"({"v":{},"w":{"keep":1}})"));
        // Errors inside a dropped member are still errors, with their place.
        QVERIFY(errorOf("{\"w\": {\"drop\": {\"k\": 1,\n \"k\": 2}}}", topTwo).find("duplicate key \"k\" at line 2") !=
                std::string::npos);
        QVERIFY(errorOf("{\"w\": {\"drop\": [1,\n 1e999]}}", topTwo).find("number out of range") != std::string::npos);
        QVERIFY(errorOf("{\"w\": {\"drop\": [1,\n ]}}", topTwo).find("parse error at line 2") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestJsonReader)
#include "test_json_reader.moc"
