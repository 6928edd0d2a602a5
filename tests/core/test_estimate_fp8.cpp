#include "estimate_test_helpers.h"
#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "workload/model_library.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

// FP8 training (docs/models/fp8.md): GEMMs at the fp8 curve, FP8 weight copies, the framework switch.

using namespace orrery;
using namespace orrery::estimate;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

TrainingConfig config(bool fp8, workload::Framework framework = workload::Framework::Megatron)
{
    TrainingConfig c;
    c.globalBatch = 32;
    c.microBatch = 2;
    c.seq = 4096;
    c.flashAttention = true;
    c.zeroStage = 1;
    c.fp8 = fp8;
    c.framework = framework;
    return c;
}

PlanTarget target(const std::string& gpu)
{
    return test::planTarget(gpu, 8, 50, 64);
}

} // namespace

class TestEstimateFp8 : public QObject
{
    Q_OBJECT
private slots:
    void hopperDefaultIsTheMeasuredCurve()
    {
        // The default Hopper ratio is the mean of our two profiles' fp8 / bf16 large-GEMM fits.
        double sum = 0;
        for (const char* file :
             {"data/calibration/h100-sxm-2026-11-26.json", "data/calibration/h200-2026-11-26.json"}) {
            std::ifstream in(test::sourcePath(file));
            const auto doc = nlohmann::json::parse(in);
            double bf16 = 0, fp8 = 0;
            for (const auto& g : doc["fit"]["gemm"]) {
                if (g["precision"] == "bf16")
                    bf16 = g["tflops"].get<double>();
                if (g["precision"] == "fp8")
                    fp8 = g["tflops"].get<double>();
            }
            QVERIFY(bf16 > 0 && fp8 > 0);
            QVERIFY(std::abs(doc["gpu"]["curves"]["fp8_gemm_speedup"].get<double>() - fp8 / bf16) < 1e-12);
            sum += fp8 / bf16;
        }
        const auto& h100 = hardware::GpuCatalog::builtin().at("h100-sxm");
        QVERIFY(std::abs(hardware::defaultCurves(h100).fp8GemmSpeedup - sum / 2) < 0.005);
        QCOMPARE(hardware::defaultCurves(hardware::GpuCatalog::builtin().at("a100-80gb-sxm")).fp8GemmSpeedup, 0.0);
    }

    void fp8GemmsAreFasterButNotByTheWholeRatio()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-13b");
        const Parallelism par{4, 2, 1};
        const double bf16 = estimateThroughput(m, config(false), par, target("h100-sxm")).iterationS;
        const double fp8 = estimateThroughput(m, config(true), par, target("h100-sxm")).iterationS;
        // Attention, the head, element-wise kernels and communication stay as they were (Amdahl), and the casts
        // add traffic: faster, by less than the GEMM ratio.
        QVERIFY(fp8 < bf16);
        QVERIFY(bf16 / fp8 < hardware::defaultCurves(*target("h100-sxm").gpu).fp8GemmSpeedup);
        QVERIFY2(bf16 / fp8 > 1.15, std::to_string(bf16 / fp8).c_str());
        // The eager path (torchao-style casts) gains less than Transformer Engine's fused one.
        const double eagerBf16 =
            estimateThroughput(m, config(false, workload::Framework::Fsdp), par, target("h100-sxm")).iterationS;
        const double eagerFp8 =
            estimateThroughput(m, config(true, workload::Framework::Fsdp), par, target("h100-sxm")).iterationS;
        QVERIFY(eagerBf16 / eagerFp8 < bf16 / fp8);
        // MFU stays relative to the bf16 peak (the convention of published FP8 runs).
        QVERIFY(estimateThroughput(m, config(true), par, target("h100-sxm")).mfu >
                estimateThroughput(m, config(false), par, target("h100-sxm")).mfu);
    }

    void weightCopiesInMemory()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-7b");
        const Parallelism par{4, 1, 1};
        const MemoryBreakdown bf16 = estimateMemory(m, config(false), par);
        const MemoryBreakdown te = estimateMemory(m, config(true), par);
        // Transformer Engine: an FP8 weight and its transpose, 2 B per parameter of the 32 layers.
        const double layers = double(m.layers) * double(m.paramsPerLayer());
        QVERIFY(std::abs((te.weightsGiB - bf16.weightsGiB) * 1024.0 * 1024 * 1024 - 2 * layers) < 1);
        QCOMPARE(te.optimizerGiB, bf16.optimizerGiB);
        QCOMPARE(te.gradientsGiB, bf16.gradientsGiB);
        // torchao: transient casts of two layers instead of persistent copies.
        const MemoryBreakdown eager = estimateMemory(m, config(true, workload::Framework::Fsdp), par);
        const MemoryBreakdown eagerBf16 = estimateMemory(m, config(false, workload::Framework::Fsdp), par);
        QCOMPARE(eager.weightsGiB, eagerBf16.weightsGiB);
        QVERIFY(eager.temporaryGiB() > eagerBf16.temporaryGiB());
        QVERIFY(eager.totalGiB() - eagerBf16.totalGiB() < te.totalGiB() - bf16.totalGiB());
    }

    void gpusWithoutFp8AreRefusedOrSkipped()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-7b");
        try {
            estimateThroughput(m, config(true), {4, 1, 1}, target("a100-80gb-sxm"));
            QFAIL("FP8 on an A100 accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("fp8") != std::string::npos, e.what());
        }
        TrainingConfig fp32 = config(true);
        fp32.precision = workload::Precision::FP32;
        QVERIFY_THROWS_EXCEPTION(Error, estimateMemory(m, fp32, {4, 1, 1}));
        const auto& catalog = hardware::GpuCatalog::builtin();
        const auto plans =
            rankPlans(m, config(true), targetsFromTypes(catalog.types(), 64, {hardware::LinkKind::InfiniBand, 50, 5}));
        QVERIFY(!plans.empty());
        for (const Plan& p : plans)
            QVERIFY2(hardware::curvesFor(catalog.at(p.gpu)).fp8GemmSpeedup > 0, p.gpu.c_str());
        // Without fp8 the same job plans on every type.
        bool sawAmpere = false;
        for (const Plan& p : rankPlans(m, config(false),
                                       targetsFromTypes(catalog.types(), 64, {hardware::LinkKind::InfiniBand, 50, 5})))
            sawAmpere = sawAmpere || p.gpu.starts_with("a100");
        QVERIFY(sawAmpere);
    }
};

QTEST_GUILESS_MAIN(TestEstimateFp8)
#include "test_estimate_fp8.moc"
