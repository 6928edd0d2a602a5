#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "workload/model_library.h"

#include <fmt/format.h>

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
constexpr double kReportedMemoryAccuracy = 0.958;  // mean of 1 - |pred - meas| / meas, full-training rows
constexpr double kReportedThroughputError = 0.118; // mean |pred - meas| / meas of TFLOP/s per GPU
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
            const Parallelism par{integer(r, "dp"), integer(r, "tp"), integer(r, "pp")};
            // `stage`: the pipeline stage of the rank that logged the figure (Megatron logs the last rank);
            // empty: the source reports the largest stage (or there is no pipeline).
            const std::string stage = r.at("stage");
            const MemoryBreakdown m =
                stage.empty() ? estimateMemory(model, c, par) : estimateStageMemory(model, c, par, std::stoi(stage));
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
                perSource[r.at("group")].first += accuracy;
                ++perSource[r.at("group")].second;
            }
        }
        const double mean = sum / n;
        table += fmt::format("| **mean (full training, {} rows)** | | | | | **{:.1f}%** |\n", n, 100 * mean);
        for (const auto& [group, acc] : perSource)
            table += fmt::format("| mean of {} ({} rows) | | | | | {:.1f}% |\n", group, acc.second,
                                 100 * acc.first / acc.second);
        qInfo("\n%s", table.c_str());
        QVERIFY2(mean >= kReportedMemoryAccuracy - kTolerance, fmt::format("mean accuracy {:.4f}", mean).c_str());
    }

    void throughputErrorAgainstPublishedMeasurements()
    {
        const auto rows = readCsv(test::sourcePath("data/validation/throughput_measurements.csv"));
        QVERIFY(rows.size() >= 10);
        double sum = 0;
        std::map<std::string, std::pair<double, int>> perGpu;
        std::string table = "| id | gpu | t | p | d | B | b | measured TFLOP/s | predicted | error |\n"
                            "|---|---|---|---|---|---|---|---|---|---|\n";
        for (const Row& r : rows) {
            // `model`: a library name or a file under data/validation/models/; empty: a GPT shape from the columns.
            workload::ModelSpec m;
            const std::string name = r.at("model");
            if (!name.empty()) {
                m = workload::resolveModel(name.ends_with(".json") ? test::sourcePath("data/validation/models/" + name)
                                                                   : name);
            } else {
                m.name = r.at("id");
                m.family = "gpt3";
                m.heads = m.kvHeads = integer(r, "heads");
                m.hidden = integer(r, "hidden");
                m.layers = integer(r, "layers");
                m.vocab = integer(r, "vocab");
                m.ffnHidden = 4 * m.hidden;
                m.seq = m.positions = integer(r, "seq");
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
            const Parallelism par{integer(r, "dp"), integer(r, "tp"), integer(r, "pp")};
            QCOMPARE(par.gpus(), integer(r, "gpus"));
            PlanTarget target;
            target.gpu = &hardware::GpuCatalog::builtin().at(r.at("gpu"));
            target.intraNode = target.gpu->intraLink;
            target.interNode = hardware::Link{hardware::LinkKind::InfiniBand, number(r, "inter_gb_s"), 5};
            target.gpusPerNode = integer(r, "gpus_per_node");
            const ThroughputEstimate e = estimateThroughput(m, c, par, target);
            // The measurement as achieved TFLOP/s per GPU: published directly, or an iteration time or a
            // token rate converted with the estimator's own FLOP count (so the error is the speed error).
            const double flops = hardwareFlopsPerIteration(m, c);
            double measured = 0;
            if (!r.at("measured_tflops_per_gpu").empty())
                measured = number(r, "measured_tflops_per_gpu");
            else if (!r.at("measured_iteration_s").empty())
                measured = flops / number(r, "measured_iteration_s") / par.gpus() / 1e12;
            else
                measured = flops / (double(c.globalBatch) * c.seq) * number(r, "measured_tokens_per_s_per_gpu") / 1e12;
            const double error = std::abs(e.tflopsPerGpu - measured) / measured;
            sum += error;
            perGpu[r.at("gpu")].first += error;
            ++perGpu[r.at("gpu")].second;
            table += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.1f} | {:+.1f}% |\n", r.at("id"),
                                 r.at("gpu"), par.tp, par.pp, par.dp, c.globalBatch, c.microBatch, measured,
                                 e.tflopsPerGpu, 100 * (e.tflopsPerGpu - measured) / measured);
        }
        const double mean = sum / double(rows.size());
        table += fmt::format("| **mean absolute error ({} rows)** | | | | | | | | | **{:.1f}%** |\n", rows.size(),
                             100 * mean);
        for (const auto& [gpu, err] : perGpu)
            table += fmt::format("| mean absolute error, {} ({} rows) | | | | | | | | | {:.1f}% |\n", gpu, err.second,
                                 100 * err.first / err.second);
        qInfo("\n%s", table.c_str());
        QVERIFY2(mean <= kReportedThroughputError + kTolerance, fmt::format("mean error {:.4f}", mean).c_str());
    }
};

QTEST_GUILESS_MAIN(TestEstimateValidation)
#include "test_estimate_validation.moc"
