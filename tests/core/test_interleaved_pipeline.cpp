// Interleaved 1F1B (Narayanan et al. 2021, sec. 2.2.2; Korthikanti et al. 2022, sec. 4.2.3): v layer chunks per
// pipeline rank shrink the bubble to (p - 1) / v slots, send v times the point-to-point traffic, and make the
// first stage hold (1 + (p - 1) / (p v)) times the activations of plain 1F1B.
#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/scenario.h"
#include "workload/model_library.h"

#include <nlohmann/json.hpp>

#include <cmath>

using namespace orrery;

namespace {

workload::TrainingConfig config(int virtualStages, int globalBatch = 16)
{
    workload::TrainingConfig c;
    c.globalBatch = globalBatch;
    c.microBatch = 1;
    c.flashAttention = true;
    c.virtualStages = virtualStages;
    return c;
}

double iterationS(const workload::TrainingConfig& c, const estimate::Parallelism& par)
{
    const hardware::GpuType& gpu = hardware::GpuCatalog::builtin().at("a100-80gb-sxm");
    return estimate::estimateThroughput(workload::resolveModel("gpt3-6.7b"), c, par, gpu, gpu.intraLink,
                                        hardware::Link{hardware::LinkKind::InfiniBand, 25, 5})
        .iterationS;
}

} // namespace

class TestInterleavedPipeline : public QObject
{
    Q_OBJECT

private slots:
    void bubbleShrinksByTheVirtualStages()
    {
        // gpt3-6.7b: 32 layers on pp = 4; 16 micro-batches of 1.
        const estimate::Parallelism par{1, 1, 4};
        const double plain = iterationS(config(1), par);
        const double two = iterationS(config(2), par);
        const double four = iterationS(config(4), par);
        QVERIFY(two < plain);
        QVERIFY(four < two);
        // Plain 1F1B runs m + p - 1 = 19 slots, v = 2 runs 16 + 1.5 and v = 4 16 + 0.75: the saving is the
        // bubble's, less v times the point-to-point traffic (small over NVLink).
        const double slot = plain / 19;
        QVERIFY2(std::abs((plain - two) / (1.5 * slot) - 1) < 0.1, std::to_string((plain - two) / slot).c_str());
        QVERIFY2(std::abs((plain - four) / (2.25 * slot) - 1) < 0.1, std::to_string((plain - four) / slot).c_str());
        // Without a bubble to shrink (many micro-batches) the gain all but vanishes.
        const double longPlain = iterationS(config(1, 512), par);
        const double longTwo = iterationS(config(2, 512), par);
        QVERIFY(longTwo < longPlain);
        QVERIFY((longPlain - longTwo) / longPlain < 0.005);
    }

    void firstStageHoldsMoreActivations()
    {
        const workload::ModelSpec model = workload::resolveModel("gpt3-6.7b");
        const estimate::Parallelism par{1, 1, 4};
        const auto plain = estimate::estimateStageMemory(model, config(1), par, 0);
        const auto two = estimate::estimateStageMemory(model, config(2), par, 0);
        QVERIFY(std::abs(two.activationsGiB / plain.activationsGiB - (1 + 3.0 / 8)) < 1e-9);
        QCOMPARE(two.weightsGiB, plain.weightsGiB);
        QCOMPARE(two.optimizerGiB, plain.optimizerGiB);
    }

    void refusesWhatMegatronRefuses()
    {
        const workload::ModelSpec model = workload::resolveModel("gpt3-6.7b");
        const auto check = [&](const workload::TrainingConfig& c, const estimate::Parallelism& par) {
            return test::errorOf([&] { estimate::checkInterleaving(model, c, par); });
        };
        QCOMPARE(check(config(2), {1, 1, 1}),
                 std::string("virtual_stages: 2 virtual stages need a pipeline (pp >= 2, got 1)"));
        QCOMPARE(check(config(3), {1, 1, 4}),
                 std::string("virtual_stages: the model's 32 layers do not split into pp x virtual stages = 4 x 3 "
                             "equal chunks"));
        QCOMPARE(check(config(2, 6), {1, 1, 4}),
                 std::string("virtual_stages: the interleaved schedule needs a number of micro-batches divisible "
                             "by pp = 4 (got 6)"));
        QCOMPARE(check(config(4), {1, 1, 4}), std::string("(no error)"));
        QCOMPARE(test::errorOf([&] {
                     estimate::estimateMemory(model, config(0), {1, 1, 4});
                 }),
                 std::string("virtual_stages: expected a positive integer, got 0"));
    }

    void aLayoutThatCannotInterleaveRunsPlain1F1B()
    {
        // The planners try every layout for a job that asks for v = 2: without a pipeline, or with micro-batches
        // that do not divide, the schedule is plain 1F1B, not an error.
        QCOMPARE(iterationS(config(2), {1, 1, 1}), iterationS(config(1), {1, 1, 1}));
        QCOMPARE(iterationS(config(2, 6), {1, 1, 4}), iterationS(config(1, 6), {1, 1, 4}));
        const workload::ModelSpec model = workload::resolveModel("gpt3-6.7b");
        QCOMPARE(estimate::estimateMemory(model, config(2), {1, 1, 1}).totalGiB(),
                 estimate::estimateMemory(model, config(1), {1, 1, 1}).totalGiB());
    }

    void scenarioCarriesTheSchedule()
    {
        const std::string text = R"({"format": "orrery-scenario", "version": 1, "name": "v",
            "cluster": {"nodes": [{"gpu": "a100-80gb-sxm", "count": 1, "gpus_per_node": 8}]},
            "workload": {"jobs": [{"id": "a", "model": "gpt3-6.7b", "batch": 16, "iterations": 10,
                                   "virtual_stages": 2}]}})";
        const io::Scenario s = io::parseScenarioText(text, "v.json");
        QCOMPARE(s.workload.jobs.at(0).config.virtualStages, 2);
        const nlohmann::json back = io::scenarioToJson(s);
        QCOMPARE(back["workload"]["jobs"][0]["virtual_stages"].get<int>(), 2);
        QVERIFY(test::errorOf([&] {
                    std::string bad = text;
                    bad.replace(bad.find("\"virtual_stages\": 2"), 19, "\"virtual_stages\": 0");
                    io::parseScenarioText(bad, "v.json");
                }).starts_with("v.json: workload.jobs[0].virtual_stages: "));
    }
};

QTEST_GUILESS_MAIN(TestInterleavedPipeline)
#include "test_interleaved_pipeline.moc"
