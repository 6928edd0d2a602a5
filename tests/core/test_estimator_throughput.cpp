// The simulator's rate source for serverless jobs: rates come from the job's own whole configuration.
#include "test_support.h"

#include "io/scenario.h"
#include "sim/estimator_throughput.h"
#include "workload/model_library.h"

#include <cmath>

using namespace orrery;

class TestEstimatorThroughput : public QObject
{
    Q_OBJECT
private slots:
    /** Jobs that differ only in a field the estimator reads must not share cached plans or rates. */
    void everyConfigFieldReachesTheRate()
    {
        const std::string text = R"({"format": "orrery-scenario", "version": 1,
            "cluster": {"nodes": [{"gpu": "a100-80gb-sxm", "count": 1, "gpus_per_node": 8}]},
            "workload": {"jobs": [
              {"id": "megatron", "model": "gpt2-350m", "batch": 32, "iterations": 100},
              {"id": "hf", "model": "gpt2-350m", "batch": 32, "iterations": 100, "framework": "hf"},
              {"id": "offload", "model": "gpt2-350m", "batch": 32, "iterations": 100, "offload_optimizer": true}]}})";
        const io::Scenario s = io::parseScenarioText(text, "t.json");
        const auto& gpu = s.cluster.catalog().at("a100-80gb-sxm");
        // Each job asked first in its own source, then after the others: the answer must not depend on order.
        std::vector<double> alone;
        for (const auto& job : s.workload.jobs) {
            const auto source = sim::makeEstimatorThroughput(s);
            alone.push_back(source->rate(job, gpu, 8));
        }
        const auto shared = sim::makeEstimatorThroughput(s);
        for (std::size_t i = 0; i < s.workload.jobs.size(); ++i)
            QCOMPARE(shared->rate(s.workload.jobs[i], gpu, 8), alone[i]);
        QVERIFY(alone[0] > 0);
        // Eager Hugging Face code is slower than Megatron's fused kernels; offloading the optimizer costs time.
        QVERIFY2(alone[1] < alone[0], qPrintable(QString("hf %1 vs megatron %2").arg(alone[1]).arg(alone[0])));
        QVERIFY2(alone[2] < alone[0], qPrintable(QString("offload %1 vs megatron %2").arg(alone[2]).arg(alone[0])));
    }
};

QTEST_GUILESS_MAIN(TestEstimatorThroughput)
#include "test_estimator_throughput.moc"
