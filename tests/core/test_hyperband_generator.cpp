// The `hyperband` workload (Themis' Workload 2 pattern generated inside a scenario; docs/scenario-format.md): same
// seed same jobs, successive halving's shape in every app, the Table 4 mix, and the scenario reader's errors.
#include "io/error.h"
#include "io/scenario.h"
#include "io/workload_loader.h"
#include "workload/hyperband_generator.h"

#include <QTest>
#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace orrery;
using nlohmann::json;

namespace {

json scenarioWith(json hyperband)
{
    return {{"format", "orrery-scenario"},
            {"version", 1},
            {"name", "h"},
            {"cluster",
             {{"nodes", {{{"name", "m"}, {"gpu", "k80"}, {"count", 4}, {"gpus_per_node", 4}}}},
              {"network", {{"kind", "ethernet"}, {"bandwidth_gbit_s", 10}}}}},
            {"workload", {{"hyperband", std::move(hyperband)}}},
            {"options", {{"seed", 5}}}};
}

/** The error the reader gives for a hyperband object, or an empty string when it reads. */
std::string errorOf(json hyperband)
{
    try {
        io::parseScenario(scenarioWith(std::move(hyperband)), "h.json");
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestHyperbandGenerator : public QObject
{
    Q_OBJECT

private slots:
    void sameSeedSameJobs()
    {
        workload::HyperbandSpec spec;
        spec.apps = 25;
        const auto a = workload::generateHyperbandApps(spec, 7);
        QCOMPARE(workload::generateHyperbandApps(spec, 7), a);
        QVERIFY(workload::generateHyperbandApps(spec, 8) != a);
        // App k does not depend on how many apps follow it.
        spec.apps = 10;
        const auto prefix = workload::generateHyperbandApps(spec, 7);
        QCOMPARE(std::vector<workload::Job>(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(prefix.size())), prefix);
    }

    // Every app: n = 2^k configurations within max_configs, one arrival, phase p's survivors n / 2^(p-1) (the jobs
    // whose cap reaches 2^(p-1)), a single job through the last phase, work within the budget's range.
    void successiveHalvingShape()
    {
        QVERIFY(rc::check("each app is one successive-halving search", [] {
            workload::HyperbandSpec spec;
            spec.apps = *rc::gen::inRange(1, 20);
            spec.maxConfigs = 1 << *rc::gen::inRange(1, 7);
            spec.budgetGpuHours = *rc::gen::inRange(1, 50) / 2.0;
            spec.appsPerHour = *rc::gen::inRange(0, 100);
            const auto jobs = workload::generateHyperbandApps(spec, *rc::gen::inRange<std::uint64_t>(0, 1000000));
            std::map<std::string, std::vector<const workload::Job*>> apps;
            for (const auto& j : jobs)
                apps[j.app].push_back(&j);
            RC_ASSERT(apps.size() == static_cast<std::size_t>(spec.apps));
            RC_ASSERT(jobs.front().arrivalS == 0.0);
            for (std::size_t i = 1; i < jobs.size(); ++i)
                RC_ASSERT(jobs[i].arrivalS >= jobs[i - 1].arrivalS);
            for (const auto& [name, list] : apps) {
                const int n = static_cast<int>(list.size());
                RC_ASSERT(n >= 2 && n <= spec.maxConfigs && (n & (n - 1)) == 0);
                const int phases = static_cast<int>(std::lround(std::log2(n))) + 1;
                double serialS = 0;
                std::set<std::string> ids;
                for (const auto* j : list) {
                    RC_ASSERT(j->arrivalS == list.front()->arrivalS);
                    RC_ASSERT(j->minGpus == 1 && j->maxGpus == j->gpus && j->referenceGpu == "k80");
                    serialS += j->durationS * j->gpus;
                    ids.insert(j->id);
                }
                RC_ASSERT(ids.size() == list.size());
                for (int p = 1; p <= phases; ++p) {
                    const auto reached = std::count_if(
                        list.begin(), list.end(), [p](const workload::Job* j) { return j->gpus >= (1 << (p - 1)); });
                    RC_ASSERT(reached == (n >> (p - 1)));
                }
                // B in [0.5, 2] x the mean; whole iterations lose less than one iteration (<= 1.1 s) per job and phase.
                const double mean = spec.budgetGpuHours * 3600;
                RC_ASSERT(serialS <= 2 * mean + 1e-6);
                RC_ASSERT(serialS >= 0.5 * mean - 1.1 * 2 * n);
            }
        }));
    }

    // Table 4's categories: CV 10%, NLP 60%, speech 30% of apps (4,000 apps: within 2.5 points).
    void modelMix()
    {
        workload::HyperbandSpec spec;
        spec.apps = 4000;
        spec.maxConfigs = 2;
        const std::set<std::string> cv = {"inception_v3", "alexnet", "resnet50", "vgg16", "vgg19"};
        const std::set<std::string> nlp = {"bi-att-flow", "langmodel", "gnmt", "transformer"};
        const std::set<std::string> speech = {"wavenet", "deepspeech"};
        std::map<std::string, int> perCategory;
        std::set<std::string> seenApps;
        for (const auto& j : workload::generateHyperbandApps(spec, 3)) {
            if (!seenApps.insert(j.app).second)
                continue;
            perCategory[cv.count(j.arch) ? "cv" : nlp.count(j.arch) ? "nlp" : speech.count(j.arch) ? "speech" : "?"]++;
        }
        QCOMPARE(perCategory.count("?"), std::size_t(0));
        QVERIFY(std::abs(perCategory["cv"] / 4000.0 - 0.1) < 0.025);
        QVERIFY(std::abs(perCategory["nlp"] / 4000.0 - 0.6) < 0.025);
        QVERIFY(std::abs(perCategory["speech"] / 4000.0 - 0.3) < 0.025);
    }

    // network_share (Figure 15): exactly round(share x apps) apps get a network-intensive model and the others a
    // compute-intensive one, a larger share keeps the smaller one's network apps, and nothing but the models (and
    // the whole iterations they round to) changes.
    void networkShare()
    {
        QVERIFY(rc::check("the share is exact, nested, and changes only models", [] {
            const std::set<std::string> network = {"alexnet", "vgg16", "vgg19", "langmodel", "gnmt", "transformer"};
            const std::set<std::string> compute = {"inception_v3", "resnet50", "bi-att-flow", "wavenet", "deepspeech"};
            workload::HyperbandSpec spec;
            spec.apps = *rc::gen::inRange(1, 40);
            spec.maxConfigs = 8;
            const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1000000);
            const auto mixed = workload::generateHyperbandApps(spec, seed);
            const auto networkOf = [&](double share) {
                spec.networkShare = share;
                const auto jobs = workload::generateHyperbandApps(spec, seed);
                RC_ASSERT(jobs.size() == mixed.size());
                std::set<std::string> apps;
                for (std::size_t i = 0; i < jobs.size(); ++i) {
                    RC_ASSERT(jobs[i].id == mixed[i].id && jobs[i].arrivalS == mixed[i].arrivalS);
                    RC_ASSERT(jobs[i].gpus == mixed[i].gpus);
                    RC_ASSERT(network.count(jobs[i].arch) + compute.count(jobs[i].arch) == 1u);
                    if (network.count(jobs[i].arch))
                        apps.insert(jobs[i].app);
                }
                RC_ASSERT(static_cast<long>(apps.size()) == std::lround(share * spec.apps));
                return apps;
            };
            const double lower = *rc::gen::inRange(0, 11) / 10.0;
            const double upper = std::min(1.0, lower + *rc::gen::inRange(0, 11) / 10.0);
            const auto small = networkOf(lower), large = networkOf(upper);
            RC_ASSERT(std::includes(large.begin(), large.end(), small.begin(), small.end()));
        }));
        // Every app's jobs share one model, and 0 and 1 are all-compute and all-network.
        workload::HyperbandSpec spec;
        spec.apps = 30;
        spec.networkShare = 1;
        for (const auto& j : workload::generateHyperbandApps(spec, 4))
            QVERIFY2(
                std::set<std::string>({"alexnet", "vgg16", "vgg19", "langmodel", "gnmt", "transformer"}).count(j.arch),
                j.arch.c_str());
    }

    // From a scenario: the jobs are generated when it is loaded, from its seed unless the generator names one, and
    // the writer gives the generator back.
    void fromAScenario()
    {
        auto s = io::parseScenario(scenarioWith({{"apps", 6}, {"max_configs", 8}}), "h.json");
        QVERIFY(s.workload.hyperband);
        workload::HyperbandSpec expected;
        expected.apps = 6;
        expected.maxConfigs = 8;
        QCOMPARE(io::loadJobs(s), workload::generateHyperbandApps(expected, 5));
        QCOMPARE(io::loadJobs(s), io::loadJobs(s));
        const auto seeded = io::parseScenario(scenarioWith({{"apps", 6}, {"max_configs", 8}, {"seed", 9}}), "h.json");
        QCOMPARE(io::loadJobs(seeded), workload::generateHyperbandApps(expected, 9));
        QCOMPARE(io::parseScenario(io::scenarioToJson(seeded), "again.json").workload, seeded.workload);
        const auto shared =
            io::parseScenario(scenarioWith({{"apps", 6}, {"max_configs", 8}, {"network_share", 0.5}}), "h.json");
        QCOMPARE(shared.workload.hyperband->networkShare, std::optional<double>(0.5));
        expected.networkShare = 0.5;
        QCOMPARE(io::loadJobs(shared), workload::generateHyperbandApps(expected, 5));
        QCOMPARE(io::parseScenario(io::scenarioToJson(shared), "again.json").workload, shared.workload);
        // The shipped example reads and expands to its 40 apps.
        const auto shipped =
            io::loadScenario(ORRERY_SOURCE_DIR "/data/scenarios/themis-hyperband-generated-testbed64.json");
        std::set<std::string> apps;
        for (const auto& j : io::loadJobs(shipped))
            apps.insert(j.app);
        QCOMPARE(apps.size(), std::size_t(40));
    }

    // Bad input names the JSON path and the field.
    void errorsNameThePath()
    {
        QVERIFY(errorOf({{"apps", 3}}).empty());
        const std::vector<std::pair<json, std::string>> cases = {
            {json::object(), "workload.hyperband.apps"},
            {{{"apps", 0}}, "workload.hyperband.apps"},
            {{{"apps", 3}, {"max_configs", 12}}, "workload.hyperband.max_configs"},
            {{{"apps", 3}, {"max_configs", 2048}}, "workload.hyperband.max_configs"},
            {{{"apps", 3}, {"budget_gpu_h", 0}}, "workload.hyperband.budget_gpu_h"},
            {{{"apps", 3}, {"apps_per_hour", -1}}, "workload.hyperband.apps_per_hour"},
            {{{"apps", 3}, {"reference_gpu", "k81"}}, "workload.hyperband.reference_gpu"},
            {{{"apps", 3}, {"prefix", ""}}, "workload.hyperband.prefix"},
            {{{"apps", 3}, {"seed", -2}}, "workload.hyperband.seed"},
            {{{"apps", 3}, {"apps_per_hr", 3}}, "apps_per_hr"},
            {{{"apps", 3}, {"network_share", -0.1}}, "workload.hyperband.network_share"},
            {{{"apps", 3}, {"network_share", 1.5}}, "workload.hyperband.network_share"},
            {{{"apps", 3}, {"network_share", "half"}}, "workload.hyperband.network_share"},
            {{{"apps", 1000000}, {"max_configs", 32}}, "workload.hyperband.apps"},
        };
        for (const auto& [hyperband, path] : cases) {
            const std::string e = errorOf(hyperband);
            QVERIFY2(e.find("h.json") != std::string::npos && e.find(path) != std::string::npos,
                     (hyperband.dump() + " -> " + e).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestHyperbandGenerator)
#include "test_hyperband_generator.moc"
