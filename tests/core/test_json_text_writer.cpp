// io::JsonTextWriter writes what nlohmann's dump(2) writes, byte for byte, and `simulate --json`'s streamed runs
// (io::writeSimulateRun) are the text of their document form (io::simulateRunJson), the output before streaming.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/json_text_writer.h"
#include "io/scenario.h"
#include "io/simulate_json.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace orrery;
using json = nlohmann::json;

namespace {

// Writes `v` element by element, as a caller streaming the document would (not through dom()).
void stream(io::JsonTextWriter& w, const json& v)
{
    switch (v.type()) {
    case json::value_t::object:
        w.beginObject();
        for (auto it = v.cbegin(); it != v.cend(); ++it) {
            w.key(it.key());
            stream(w, it.value());
        }
        w.endObject();
        break;
    case json::value_t::array:
        w.beginArray();
        for (const auto& e : v)
            stream(w, e);
        w.endArray();
        break;
    case json::value_t::string:
        w.value(v.get_ref<const std::string&>());
        break;
    case json::value_t::boolean:
        w.value(v.get<bool>());
        break;
    case json::value_t::number_integer:
        w.value(v.get<std::int64_t>());
        break;
    case json::value_t::number_unsigned:
        w.value(v.get<std::uint64_t>());
        break;
    case json::value_t::number_float:
        w.value(v.get<double>());
        break;
    default:
        w.null();
    }
}

std::string written(const std::function<void(io::JsonTextWriter&)>& f)
{
    std::string out;
    io::JsonTextWriter w([&out](std::string_view s) { out.append(s); });
    f(w);
    w.finish();
    return out;
}

// Doubles of every kind the output meets: integral, decimal fractions, arbitrary bit patterns (subnormals, huge
// magnitudes, NaN and infinities, which both write as null), signed zeros.
double arbitraryDouble(std::mt19937_64& rng)
{
    switch (rng() % 6) {
    case 0:
        return static_cast<double>(static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 54)) -
                                   (std::int64_t{1} << 53));
    case 1:
        return static_cast<double>(rng() % 2000000) / std::pow(10.0, static_cast<double>(rng() % 12));
    case 2:
        return std::bit_cast<double>(rng());
    case 3:
        return (rng() % 2 ? -1.0 : 1.0) * 0.0;
    case 4:
        return std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 200) - 100);
    default:
        return static_cast<double>(rng()) / 3.0 * 1e-7;
    }
}

json arbitraryValue(int depth)
{
    static const std::vector<std::string> strings{"",
                                                  "plain",
                                                  "quote\"",
                                                  "back\\slash",
                                                  "tab\there",
                                                  "line\nbreak",
                                                  "ctrl\x01\x1f",
                                                  "del\x7f",
                                                  "çé 東京",
                                                  "emoji \xf0\x9f\x9a\x80"};
    static const std::vector<std::string> keys{"a", "b", "B", "job_index", "rate_per_s", "", "é", "z\"", "a b"};
    const int kind = *rc::gen::inRange(0, depth < 3 ? 9 : 7);
    switch (kind) {
    case 0:
        return nullptr;
    case 1:
        return *rc::gen::arbitrary<bool>();
    case 2:
        return *rc::gen::arbitrary<std::int64_t>();
    case 3:
        return *rc::gen::arbitrary<std::uint64_t>();
    case 4: {
        std::mt19937_64 rng(*rc::gen::arbitrary<std::uint64_t>());
        return arbitraryDouble(rng);
    }
    case 5:
        return *rc::gen::elementOf(strings);
    case 6:
        return *rc::gen::arbitrary<double>();
    case 7: {
        json a = json::array();
        const int n = *rc::gen::inRange(0, 5);
        for (int i = 0; i < n; ++i)
            a.push_back(arbitraryValue(depth + 1));
        return a;
    }
    default: {
        json o = json::object();
        const int n = *rc::gen::inRange(0, 5);
        for (int i = 0; i < n; ++i)
            o[*rc::gen::elementOf(keys)] = arbitraryValue(depth + 1);
        return o;
    }
    }
}

workload::Job withDeadlines(workload::Job j, std::vector<workload::Deadline> d, std::string cls)
{
    j.deadlines = std::move(d);
    j.sloClass = std::move(cls);
    return j;
}

// Both forms of a run agree, also inside the {"runs": [...]} document the CLI prints and with a run_id merged in.
void checkRun(const sim::RunResult& r)
{
    const auto s = metrics::summarize(r);
    QCOMPARE(written([&](io::JsonTextWriter& w) { io::writeSimulateRun(w, r, s); }), io::simulateRunJson(r, s).dump(2));
    json withId = io::simulateRunJson(r, s);
    withId["run_id"] = 7;
    const json doc = {{"runs", {withId, io::simulateRunJson(r, s)}}};
    QCOMPARE(written([&](io::JsonTextWriter& w) {
                 w.beginObject();
                 w.key("runs");
                 w.beginArray();
                 io::writeSimulateRun(w, r, s, {{"run_id", 7}});
                 io::writeSimulateRun(w, r, s);
                 w.endArray();
                 w.endObject();
             }),
             doc.dump(2));
}

} // namespace

class TestJsonTextWriter : public QObject
{
    Q_OBJECT
private slots:
    void matchesDumpProperty()
    {
        ORRERY_CHECK_PROPERTY("streamed text is dump(2)'s, at the root and nested", [] {
            const json doc = arbitraryValue(0);
            RC_ASSERT(written([&](io::JsonTextWriter& w) { stream(w, doc); }) == doc.dump(2));
            RC_ASSERT(written([&](io::JsonTextWriter& w) { w.dom(doc); }) == doc.dump(2));
            // A document value nested at depth 2 is re-indented to its place.
            const json nested = {{"k", json::array({doc, doc})}};
            RC_ASSERT(written([&](io::JsonTextWriter& w) {
                          w.beginObject();
                          w.key("k");
                          w.beginArray();
                          w.dom(doc);
                          stream(w, doc);
                          w.endArray();
                          w.endObject();
                      }) == nested.dump(2));
        });
    }

    void numbersMatchNlohmann()
    {
        // 300,000 numbers, a third of them repeats of recent ones (the formatted-number cache's hits, and its
        // slots overwritten by colliding values), in pieces larger than the writer's 64 KiB flush.
        std::mt19937_64 rng(15);
        std::vector<double> values;
        for (int i = 0; i < 300000; ++i)
            values.push_back(i > 0 && rng() % 3 == 0 ? values[static_cast<std::size_t>(rng() % values.size())]
                                                     : arbitraryDouble(rng));
        int pieces = 0;
        std::string out;
        io::JsonTextWriter w([&](std::string_view s) {
            out.append(s);
            ++pieces;
        });
        w.array(values);
        w.finish();
        QCOMPARE(out, json(values).dump(2));
        QVERIFY(pieces > 10);
        std::vector<std::int64_t> ints{0, -1, 1, std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max()};
        QCOMPARE(written([&](io::JsonTextWriter& w) { w.array(ints); }), json(ints).dump(2));
        QCOMPARE(written([&](io::JsonTextWriter& w) { w.value(std::numeric_limits<std::uint64_t>::max()); }),
                 json(std::numeric_limits<std::uint64_t>::max()).dump(2));
    }

    void refusesTextTheDocumentWouldNotGive()
    {
        const auto throws = [](const std::function<void(io::JsonTextWriter&)>& f) {
            try {
                written(f);
            } catch (const std::logic_error&) {
                return true;
            }
            return false;
        };
        QVERIFY(throws([](io::JsonTextWriter& w) {
            w.beginObject();
            w.key("b");
            w.value(1);
            w.key("a"); // nlohmann's object puts "a" first
        }));
        QVERIFY(throws([](io::JsonTextWriter& w) {
            w.beginObject();
            w.key("a");
            w.value(1);
            w.key("a");
        }));
        QVERIFY(throws([](io::JsonTextWriter& w) {
            w.beginObject();
            w.value(1); // no key
        }));
        QVERIFY(throws([](io::JsonTextWriter& w) { w.beginArray(); })); // finish() with the array open
        QVERIFY(throws([](io::JsonTextWriter& w) {
            w.beginArray();
            w.endObject();
        }));
        QVERIFY(throws([](io::JsonTextWriter& w) {
            io::writeObject(w, {{"a", 1}}, {{"a", [](auto& o) { o.null(); }}});
        }));
        QVERIFY(!throws([](io::JsonTextWriter& w) { w.array(std::vector<int>{}); }));
    }

    void writeObjectMergesStreamedMembers()
    {
        const json members = {{"b", 2}, {"d", {{"x", 1.5}}}, {"f", json::array()}};
        const auto out = written([&](io::JsonTextWriter& w) {
            io::writeObject(w, members,
                            {{"g",
                              [](io::JsonTextWriter& o) {
                                  o.array(std::vector<double>{0.1, 2.0});
                              }},
                             {"a", [](io::JsonTextWriter& o) { o.value("first"); }},
                             {"c", [](io::JsonTextWriter& o) { o.dom(json::object()); }}});
        });
        json all = members;
        all["g"] = {0.1, 2.0};
        all["a"] = "first";
        all["c"] = json::object();
        QCOMPARE(out, all.dump(2));
    }

    void simulateRunStreamsTheDocument()
    {
        // The embedded default scenario under a run-to-completion and a preemptive policy...
        const auto scenario = io::defaultScenario();
        const auto workload = sim::prepareScenario(scenario);
        for (const std::string policy : {"fifo", "tiresias"}) {
            auto p = sched::makePolicy(policy);
            const auto r = sim::simulate(workload, *p, scenario.options.seed);
            QVERIFY(!r.rateSegments.empty());
            checkRun(r);
        }
        // ...jobs with deadlines and SLO classes (slo_by_class, non-null ratios)...
        const auto cluster = test::makeCluster({{"v100", 1, 2}});
        const auto slo = test::prepare(cluster, {withDeadlines(test::fixedJob("a", 0, 1, 100), {{150, 2}}, "gold"),
                                                 withDeadlines(test::fixedJob("b", 5, 2, 300), {{200, 1}}, "bronze"),
                                                 test::fixedJob("c", 10, 1, 50)});
        auto fifo = sched::makePolicy("fifo");
        checkRun(sim::simulate(slo, *fifo, 0));
        // ...and a run with no jobs (empty columns).
        checkRun(sim::simulate(test::prepare(cluster, {}), *fifo, 0));
    }
};

QTEST_GUILESS_MAIN(TestJsonTextWriter)
#include "test_json_text_writer.moc"
