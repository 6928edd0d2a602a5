#include "test_support.h"

#include "hardware/cluster.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "workload/model_library.h"

#include <nlohmann/json.hpp>

using namespace orrery;
using namespace orrery::hardware;

class TestCatalog : public QObject
{
    Q_OBJECT
private slots:
    void builtinHasRequiredTypes()
    {
        const auto& c = GpuCatalog::builtin();
        for (const char* name :
             {"k80",           "p100",           "v100-16gb",     "v100-32gb", "t4",  "rtx2080ti", "rtx3090",
              "rtx4090",       "quadro-rtx6000", "a4000",         "a6000",     "a10", "a30",       "a100-40gb-pcie",
              "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm", "a800-80gb", "l4",  "l40s",      "h100-pcie",
              "h100-sxm",      "h200",           "mi250x",        "mi300x"}) {
            const GpuType* t = c.find(name);
            QVERIFY2(t, name);
            QVERIFY(t->memoryGiB > 0 && t->fp16TFlops > 0 && t->fp32TFlops > 0);
            QVERIFY(t->memoryBandwidthGBps > 0 && t->intraLink.bandwidthGBps > 0 && t->priceUsdPerHour > 0);
            QVERIFY2(!t->source.empty(), name);
            // Tensor-core FP16 is never slower than FP32 on any of these.
            QVERIFY(t->fp16TFlops >= t->fp32TFlops);
        }
    }

    void aliasesUsedByTraces()
    {
        const auto& c = GpuCatalog::builtin();
        QCOMPARE(c.at("V100").name, std::string("v100-16gb"));
        QCOMPARE(c.at("rtx").name, std::string("rtx2080ti"));
        QCOMPARE(c.at("dgx").name, std::string("a100-40gb-sxm"));
        QCOMPARE(c.at("quad").name, std::string("quadro-rtx6000"));
        QCOMPARE(c.at("a100").memoryGiB, 40.0);
        QCOMPARE(c.at("h100").memoryGiB, 80.0);
    }

    void knownFigures()
    {
        const auto& c = GpuCatalog::builtin();
        QCOMPARE(c.at("a100-40gb-sxm").fp16TFlops, 312.0);
        QCOMPARE(c.at("h100-sxm").fp16TFlops, 989.0);
        QCOMPARE(c.at("v100-32gb").memoryGiB, 32.0);
        QCOMPARE(c.at("rtx2080ti").memoryGiB, 11.0);
    }

    void unknownTypeSuggests()
    {
        try {
            GpuCatalog::builtin().at("a100-40gb-sxn");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("unknown GPU type \"a100-40gb-sxn\" (did you mean \"a100-40gb-sxm\"?)"));
        }
    }

    void rejectsBadCatalog()
    {
        auto doc = nlohmann::json::parse(R"({"format":"orrery-gpus","version":1,"gpus":[
            {"name":"x","memory_gib":-1,"fp16_tflops":1,"fp32_tflops":1,"memory_bandwidth_gb_s":1}]})");
        try {
            GpuCatalog::fromJson(doc, "mine.json");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("mine.json: gpus[0].memory_gib: expected a positive number, got -1"));
        }
    }

    void clusterNumbersGpusAcrossNodes()
    {
        Cluster cl({{"rtx", "rtx2080ti", 3, 8, {}}, {"a100", "a100-40gb-sxm", 2, 8, {}}, {"quad", "quad", 1, 4, {}}},
                   Link{LinkKind::Ethernet, 3.125, 5}, GpuCatalog::builtin());
        QCOMPARE(cl.totalGpus(), 44);
        QCOMPARE(int(cl.nodes().size()), 6);
        QCOMPARE(cl.nodes()[3].name, std::string("a100-0"));
        QCOMPARE(cl.nodes()[5].name, std::string("quad"));
        QCOMPARE(cl.nodeOfGpu(23), 2);
        QCOMPARE(cl.nodeOfGpu(24), 3);
        QCOMPARE(cl.gpuTypeOfGpu(43).name, std::string("quadro-rtx6000"));
        QCOMPARE(int(cl.presentTypes().size()), 3);
        QCOMPARE(cl.gpusOfType(cl.catalog().indexOf("a100")), 16);
        QCOMPARE(cl.summary(), std::string("3x8 rtx2080ti + 2x8 a100-40gb-sxm + 1x4 quadro-rtx6000"));
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "test_catalog.moc"
