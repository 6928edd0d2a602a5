// orrery-cli serve threshold: AlpaServe's 99%-attainment measures (fewest devices, highest rate, most burstiness,
// tightest SLO) for several methods at once, by a parallel bracketing search (docs/serving.md).
#include "serve_args.h"

#include "io/error.h"
#include "serve/threshold_search.h"
#include "util/text.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <thread>

namespace orrery::cli {

namespace {

using namespace orrery::serve;

struct ThresholdArgs
{
    ServeArgs serve;
    std::string metric;
    double from = 0;
    double to = 0;
    std::string algorithms = "alpaserve,sr,clockwork++";
    double target = 0.99;
    double tolerance = 0.05;
    int probesPerRound = 1;
    int threads = 0;
    bool fullSearch = false;
};

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(util::trim(text.substr(start, comma - start)));
        start = comma + 1;
    }
    return out;
}

nlohmann::json optionalJson(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string valueText(const std::optional<double>& v, ThresholdMetric metric)
{
    if (!v)
        return "-";
    return metric == ThresholdMetric::Devices ? fmt::format("{:.0f}", *v) : fmt::format("{:.3g}", *v);
}

} // namespace

void registerServeThreshold(CLI::App* serve)
{
    auto a = std::make_shared<ThresholdArgs>();
    auto* cmd = serve->add_subcommand(
        "threshold", "Search, per method, the fewest devices, highest rate, highest CV or tightest SLO scale at which "
                     "SLO attainment stays at or above the target (AlpaServe §6.1's measures at 99%)");
    addCommonOptions(cmd, a->serve, false);
    cmd->add_option("--metric", a->metric, "devices, rate, cv or slo-scale")
        ->required()
        ->check(CLI::IsMember({"devices", "rate", "cv", "slo-scale"}));
    cmd->add_option("--from", a->from, "Lower end of the range searched (> 0)")->required();
    cmd->add_option("--to", a->to, "Upper end of the range searched")->required();
    cmd->add_option("--algorithms", a->algorithms,
                    "Methods, comma-separated: alpaserve, sr, clockwork++, round-robin, greedy")
        ->capture_default_str();
    cmd->add_option("--target", a->target, "SLO attainment to meet, in (0, 1]")->capture_default_str();
    cmd->add_option("--tolerance", a->tolerance,
                    "Stop when the bracket's ends are within this relative distance (devices: adjacent counts)")
        ->capture_default_str();
    cmd->add_option("--probes-per-round", a->probesPerRound,
                    "Values tried per round inside the bracket, in parallel (1: bisection)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    cmd->add_option("--threads", a->threads, "Worker threads for the probes (0: the machine's cores)")
        ->capture_default_str()
        ->check(CLI::Range(0, 256));
    cmd->add_flag("--full-search", a->fullSearch,
                  "Search every placement of every probe to the end (by default a probe stops at the first placement "
                  "meeting the target, which decides it)");
    cmd->add_option("--beam", a->serve.beam, "Beam width of Algorithm 1")->capture_default_str();
    cmd->add_option("--fast-above", a->serve.fastAbove,
                    "Use Algorithm 1's fast heuristic when an iteration would simulate more requests than this")
        ->capture_default_str();
    cmd->add_option("--max-buckets", a->serve.maxBuckets, "Latency buckets Algorithm 2 may form")
        ->capture_default_str();
    cmd->add_option("--window", a->serve.windowS, "Clockwork++ window in seconds")->capture_default_str();
    cmd->callback([a] {
        const std::vector<std::string> methods = splitList(a->algorithms);
        for (const auto& m : methods)
            checkMethod("--algorithms", m);
        const ThresholdMetric metric = *thresholdMetricFromName(a->metric);
        if (metric == ThresholdMetric::Devices && (a->from < 1 || a->to > 4096))
            throw Error("", "--from", "a device count runs from 1 to 4096");
        ServingSpec spec = specOf(a->serve);
        ThresholdOptions options;
        options.target = a->target;
        options.lo = a->from;
        options.hi = a->to;
        options.relativeTolerance = a->tolerance;
        options.probesPerRound = a->probesPerRound;
        options.threads =
            a->threads > 0 ? a->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        options.stopAtTarget = !a->fullSearch;
        const auto results = searchThresholds(spec, metric, methods, options);
        if (a->serve.json) {
            nlohmann::json out = {{"metric", thresholdMetricName(metric)},
                                  {"target", options.target},
                                  {"from", options.lo},
                                  {"to", options.hi},
                                  {"spec", servingSpecToJson(spec)},
                                  {"threads", options.threads}};
            nlohmann::json list = nlohmann::json::array();
            for (const auto& r : results) {
                nlohmann::json probes = nlohmann::json::array();
                for (const auto& p : r.probes)
                    probes.push_back({{"value", p.value},
                                      {"attainment", p.attainment},
                                      {"half_width_95",
                                       std::isnan(p.halfWidth) ? nlohmann::json(nullptr) : nlohmann::json(p.halfWidth)},
                                      {"requests", p.requests},
                                      {"meets", p.meets},
                                      {"search_s", p.searchS}});
                list.push_back({{"method", r.method},
                                {"value", optionalJson(r.value)},
                                {"missed", optionalJson(r.missed)},
                                {"probes", probes},
                                {"wall_s", r.wallS}});
            }
            out["results"] = list;
            printJson(out);
            return;
        }
        std::cout << fmt::format("{} at {:.4g}% SLO attainment, searched in [{:g}, {:g}]\n",
                                 thresholdMetricName(metric), 100 * options.target, options.lo, options.hi);
        Table t({"method", attainmentRises(metric) ? "smallest meeting" : "largest meeting", "next (misses)", "probes",
                 "probe_search_s"});
        for (const auto& r : results) {
            double seconds = 0;
            for (const auto& p : r.probes)
                seconds += p.searchS;
            t.add({methodTitle(r.method), valueText(r.value, metric), valueText(r.missed, metric),
                   std::to_string(r.probes.size()), fmt::format("{:.1f}", seconds)});
        }
        std::cout << t.render();
        if (!results.empty())
            std::cout << fmt::format("wall {:.1f} s on {} threads\n", results.front().wallS, options.threads);
    });
}

} // namespace orrery::cli
