#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "workload/model_library.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

// Recomputes the accuracy tables of docs/models/memory.md and docs/models/throughput.md from the
// measurement CSVs, and fails when the estimators drift below the figures reported there.

using namespace orrery;
using namespace orrery::estimate;

namespace {

// Reported in docs/models/memory.md and docs/models/throughput.md; keep in step.
constexpr double kReportedMemoryAccuracy = 0.949; // mean of 1 - |pred - meas| / meas, full-training rows
// Our own PyTorch rows' allocated figures (torch.cuda.max_memory_allocated), the rows the 95 % target
// was missed on before the step's phases were modelled.
constexpr double kReportedOwnAllocatedAccuracy = 0.991;
// The published rows measured as allocated memory (Megatron-Core's mem-max-allocated-bytes, ms-swift's log): the
// issue's 95 % target, met once the libraries' cuBLAS workspaces were counted (docs/models/memory.md).
constexpr double kReportedPublishedAllocatedAccuracy = 0.962;
// Iteration-time errors |predicted / measured - 1| over data/validation/throughput_measurements.csv.
constexpr double kReportedMedianTimeError = 0.068;
constexpr double kReportedMeanTimeError = 0.094;
constexpr double kReportedWorstBucketMedian =
    0.103; // over the buckets (source, framework, GPU, size), >= 5 rows
constexpr double kTolerance = 0.005;

using Row = std::map<std::string, std::string>;

std::vector<std::string> splitCsvLine(const std::string& line)
{
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            cells.emplace_back();
        else
            cells.back() += c;
    }
    return cells;
}

std::vector<Row> readCsv(const std::string& path)
{
    std::ifstream in(path);
    std::vector<Row> rows;
    std::string line;
    if (!std::getline(in, line))
        return rows;
    const auto header = splitCsvLine(line);
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        const auto cells = splitCsvLine(line);
        if (cells.size() != header.size())
            throw std::runtime_error(path + ": wrong number of cells in: " + line);
        Row row;
        for (std::size_t i = 0; i < header.size(); ++i)
            row[header[i]] = cells[i];
        rows.push_back(row);
    }
    return rows;
}

int integer(const Row& r, const char* key)
{
    return std::stoi(r.at(key));
}

int optionalInteger(const Row& r, const char* key, int fallback)
{
    return r.at(key).empty() ? fallback : std::stoi(r.at(key));
}

double number(const Row& r, const char* key)
{
    return std::stod(r.at(key));
}

} // namespace

class TestEstimateValidation : public QObject
{
    Q_OBJECT
private slots:
    void memoryAccuracyAgainstPublishedMeasurements()
    {
        const auto rows = readCsv(test::sourcePath("data/validation/memory_measurements.csv"));
        QVERIFY(rows.size() >= 5);
        double sum = 0;
        int n = 0;
        std::string table =
            "| id | source | measured GiB | kind | predicted GiB | accuracy |\n|---|---|---|---|---|---|\n";
        std::map<std::string, std::pair<double, int>> perSource;
        for (const Row& r : rows) {
            // A library name, or a model file under data/validation/models/ for models outside the library.
            const std::string name = r.at("model");
            const workload::ModelSpec model = workload::resolveModel(
                name.ends_with(".json") ? test::sourcePath("data/validation/models/" + name) : name);
            workload::TrainingConfig c;
            c.globalBatch = integer(r, "batch");
            c.microBatch = integer(r, "micro_batch");
            c.seq = integer(r, "seq");
            c.zeroStage = integer(r, "zero");
            c.precision = workload::precisionFromString(r.at("precision"));
            c.optimizer = workload::optimizerFromString(r.at("optimizer"));
            c.recompute = workload::recomputeFromString(r.at("recompute"));
            c.flashAttention = r.at("flash_attn") == "1";
            c.sequenceParallel = r.at("sequence_parallel") == "1";
            c.autocast = r.at("autocast") == "1";
            c.fp32Grads = r.at("fp32_grads") == "1";
            c.pureHalf = r.at("pure_half") == "1";
            // `framework`: who ran the step; its profile decides whether gradients exist when backward starts, how
            // the loss is stored and whether the optimizer step has temporaries (docs/models/memory.md).
            c.framework = workload::frameworkFromString(r.at("framework"));
            c.fp8 = r.at("fp8") == "1";
            // `ep`: expert parallelism of an MoE model, `cp`: context parallelism (empty: 1).
            const Parallelism par{integer(r, "dp"), integer(r, "tp"), integer(r, "pp"), optionalInteger(r, "ep", 1),
                                  optionalInteger(r, "cp", 1)};
            // `stage`: the pipeline stage of the rank that logged the figure (Megatron logs the last rank);
            // empty: the source reports the largest stage (or there is no pipeline).
            const std::string stage = r.at("stage");
            // The GPU sizes the libraries' cuBLAS workspaces (docs/models/memory.md, "Library workspaces").
            const hardware::GpuType& gpu = hardware::GpuCatalog::builtin().at(r.at("gpu"));
            const MemoryBreakdown m = stage.empty() ? estimateMemory(model, c, par, &gpu)
                                                    : estimateStageMemory(model, c, par, std::stoi(stage), &gpu);
            const std::string kind = r.at("kind");
            QVERIFY2(kind == "device" || kind == "allocated" || kind == "reserved", kind.c_str());
            // allocated: torch.cuda.max_memory_allocated (live tensors); reserved: plus the allocator's slack;
            // device (nvidia-smi): plus the context, the one the source measured when it gives it.
            double predicted = kind == "allocated" ? m.allocatedGiB() : m.reservedGiB();
            if (kind == "device")
                predicted += r.at("context_gib").empty() ? m.contextGiB : number(r, "context_gib");
            const double measured = number(r, "measured_gib");
            const double accuracy = 1 - std::abs(predicted - measured) / measured;
            table += fmt::format("| {} | {} | {:.2f} | {} | {:.2f} | {:.1f}% |\n", r.at("id"), r.at("group"), measured,
                                 kind, predicted, 100 * accuracy);
            if (r.at("full_training") == "1") {
                sum += accuracy;
                ++n;
                for (const std::string& key : {r.at("group"), r.at("group") + ", " + kind}) {
                    perSource[key].first += accuracy;
                    ++perSource[key].second;
                }
            }
        }
        const double mean = sum / n;
        double ownAllocated = 0;
        int ownAllocatedRows = 0;
        for (const auto& [key, acc] : perSource)
            if (key.starts_with("own-") && key.ends_with(", allocated")) {
                ownAllocated += acc.first;
                ownAllocatedRows += acc.second;
            }
        ownAllocated /= std::max(1, ownAllocatedRows);
        double publishedAllocated = 0;
        int publishedAllocatedRows = 0;
        for (const auto& [key, acc] : perSource)
            if (!key.starts_with("own-") && key.ends_with(", allocated")) {
                publishedAllocated += acc.first;
                publishedAllocatedRows += acc.second;
            }
        publishedAllocated /= std::max(1, publishedAllocatedRows);
        table += fmt::format("| **mean of the published allocated rows ({})** | | | | | **{:.1f}%** |\n",
                             publishedAllocatedRows, 100 * publishedAllocated);
        table += fmt::format("| **mean (full training, {} rows)** | | | | | **{:.1f}%** |\n", n, 100 * mean);
        for (const auto& [group, acc] : perSource)
            table += fmt::format("| mean of {} ({} rows) | | | | | {:.1f}% |\n", group, acc.second,
                                 100 * acc.first / acc.second);
        qInfo("\n%s", table.c_str());
        QVERIFY2(mean >= kReportedMemoryAccuracy - kTolerance, fmt::format("mean accuracy {:.4f}", mean).c_str());
        QVERIFY(ownAllocatedRows >= 70);
        QVERIFY(publishedAllocatedRows >= 15);
        QVERIFY2(publishedAllocated >= kReportedPublishedAllocatedAccuracy - kTolerance,
                 fmt::format("published allocated accuracy {:.4f}", publishedAllocated).c_str());
        QVERIFY2(ownAllocated >= kReportedOwnAllocatedAccuracy - kTolerance,
                 fmt::format("own allocated accuracy {:.4f}", ownAllocated).c_str());
    }

    void throughputErrorAgainstPublishedMeasurements()
    {
        const auto rows = readCsv(test::sourcePath("data/validation/throughput_measurements.csv"));
        QVERIFY(rows.size() >= 10);
        std::vector<double> all;
        std::map<std::string, std::vector<double>> buckets; // "kind: name" -> signed time errors
        std::string table = "| id | framework | gpu | t | p | d | B | b | measured s | predicted s | time error |\n"
                            "|---|---|---|---|---|---|---|---|---|---|---|\n";
        for (const Row& r : rows) {
            // `model`: a library name or a file under data/validation/models/; empty: a GPT shape from the columns.
            workload::ModelSpec m;
            const std::string name = r.at("model");
            if (!name.empty()) {
                m = workload::resolveModel(name.ends_with(".json") ? test::sourcePath("data/validation/models/" + name)
                                                                   : name);
            } else {
                m.name = r.at("id");
                m.family = r.at("family");
                m.heads = m.kvHeads = integer(r, "heads");
                m.hidden = integer(r, "hidden");
                m.layers = integer(r, "layers");
                m.vocab = integer(r, "vocab");
                m.ffnHidden = 4 * m.hidden;
                m.seq = m.positions = integer(r, "seq");
                if (m.family == "mpt") {
                    // MPT: no biases, ALiBi instead of learned positions, no dropout (llm-foundry yamls).
                    m.bias = false;
                    m.positions = 0;
                }
            }
            workload::TrainingConfig c;
            c.globalBatch = integer(r, "batch");
            c.microBatch = integer(r, "micro_batch");
            c.seq = integer(r, "seq");
            c.precision = workload::precisionFromString(r.at("precision"));
            c.recompute = workload::recomputeFromString(r.at("recompute"));
            c.sequenceParallel = r.at("sequence_parallel") == "1";
            c.zeroStage = integer(r, "zero");
            c.flashAttention = r.at("flash_attn") == "1";
            c.autocast = r.at("autocast") == "1";
            c.framework = workload::frameworkFromString(r.at("framework"));
            c.pureHalf = r.at("pure_half") == "1";
            if (!r.at("optimizer").empty())
                c.optimizer = workload::optimizerFromString(r.at("optimizer"));
            c.virtualStages = optionalInteger(r, "virtual_stages", 1);
            c.fp8 = r.at("fp8") == "1";
            const Parallelism par{integer(r, "dp"), integer(r, "tp"), integer(r, "pp"), optionalInteger(r, "ep", 1),
                                  optionalInteger(r, "cp", 1)};
            QCOMPARE(par.gpus(), integer(r, "gpus"));
            PlanTarget target;
            target.gpu = &hardware::GpuCatalog::builtin().at(r.at("gpu"));
            target.intraNode = target.gpu->intraLink;
            target.interNode = hardware::Link{hardware::LinkKind::InfiniBand, number(r, "inter_gb_s"), 5};
            target.gpusPerNode = integer(r, "gpus_per_node");
            const ThroughputEstimate e = estimateThroughput(m, c, par, target);
            // The measurement as an iteration time: published directly, or a TFLOP/s or token rate converted
            // with the estimator's own FLOP count (so the error is the time error).
            const double flops = hardwareFlopsPerIteration(m, c);
            double measured = 0;
            if (!r.at("measured_iteration_s").empty())
                measured = number(r, "measured_iteration_s");
            else if (!r.at("measured_tflops_per_gpu").empty())
                measured = flops / (number(r, "measured_tflops_per_gpu") * 1e12 * par.gpus());
            else
                measured = double(c.globalBatch) * c.seq / (number(r, "measured_tokens_per_s_per_gpu") * par.gpus());
            const double error = e.iterationS / measured - 1;
            all.push_back(error);
            const std::string id = r.at("id");
            buckets["source: " + id.substr(0, id.find('-'))].push_back(error);
            buckets["framework: " + r.at("framework")].push_back(error);
            buckets["gpu: " + r.at("gpu")].push_back(error);
            if (m.isMoe())
                buckets["model: mixture of experts"].push_back(error);
            if (c.fp8)
                buckets["option: fp8"].push_back(error);
            if (par.cp > 1)
                buckets["option: context parallel"].push_back(error);
            const double params = double(m.paramCount());
            buckets[std::string("size: ") + (params < 1e9    ? "< 1B"
                                             : params < 1e10 ? "1-10B"
                                             : params < 1e11 ? "10-100B"
                                                             : ">= 100B")]
                .push_back(error);
            table += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.4g} | {:.4g} | {:+.1f}% |\n", id,
                                 r.at("framework"), r.at("gpu"), par.tp, par.pp, par.dp, c.globalBatch, c.microBatch,
                                 measured, e.iterationS, 100 * error);
        }
        const auto stats = [](std::vector<double> errors) {
            for (double& x : errors)
                x = std::abs(x);
            std::sort(errors.begin(), errors.end());
            const std::size_t n = errors.size();
            const double median = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
            double sum = 0;
            for (double x : errors)
                sum += x;
            return std::pair{median, sum / double(n)};
        };
        const auto [median, mean] = stats(all);
        table += fmt::format("\n| bucket | rows | median abs time error | mean abs time error |\n|---|---|---|---|\n"
                             "| **all** | {} | **{:.1f}%** | {:.1f}% |\n",
                             all.size(), 100 * median, 100 * mean);
        double worstBucket = 0;
        for (const auto& [bucket, errors] : buckets) {
            const auto [bm, ba] = stats(errors);
            table += fmt::format("| {} | {} | {:.1f}% | {:.1f}% |\n", bucket, errors.size(), 100 * bm, 100 * ba);
            // The option buckets (FP8, context parallelism) cut across the buckets: reported, not targeted.
            if (errors.size() >= 5 && !bucket.starts_with("option: "))
                worstBucket = std::max(worstBucket, bm);
        }
        qInfo("\n%s", table.c_str());
        QVERIFY2(median <= kReportedMedianTimeError + kTolerance, fmt::format("median error {:.4f}", median).c_str());
        QVERIFY2(mean <= kReportedMeanTimeError + kTolerance, fmt::format("mean error {:.4f}", mean).c_str());
        QVERIFY2(worstBucket <= kReportedWorstBucketMedian + kTolerance,
                 fmt::format("worst bucket median {:.4f}", worstBucket).c_str());
    }
};

QTEST_GUILESS_MAIN(TestEstimateValidation)
#include "test_estimate_validation.moc"
