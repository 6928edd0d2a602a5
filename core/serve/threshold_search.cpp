#include "serve/threshold_search.h"

#include "io/error.h"
#include "serve/attainment_curves.h"
#include "serve/serving_run.h"
#include "util/run_workers.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>

namespace orrery::serve {

std::string thresholdMetricName(ThresholdMetric metric)
{
    switch (metric) {
    case ThresholdMetric::Devices:
        return "devices";
    case ThresholdMetric::Rate:
        return "rate";
    case ThresholdMetric::Cv:
        return "cv";
    case ThresholdMetric::SloScale:
        return "slo-scale";
    }
    return {};
}

std::optional<ThresholdMetric> thresholdMetricFromName(const std::string& name)
{
    for (ThresholdMetric m :
         {ThresholdMetric::Devices, ThresholdMetric::Rate, ThresholdMetric::Cv, ThresholdMetric::SloScale})
        if (thresholdMetricName(m) == name)
            return m;
    return std::nullopt;
}

bool attainmentRises(ThresholdMetric metric)
{
    return metric == ThresholdMetric::Devices || metric == ThresholdMetric::SloScale;
}

ServingSpec withThresholdValue(ServingSpec spec, ThresholdMetric metric, double value)
{
    switch (metric) {
    case ThresholdMetric::Devices:
        spec.gpus = static_cast<int>(std::lround(value));
        return spec;
    case ThresholdMetric::Rate:
        return withAxisValue(std::move(spec), CurveAxis::Rate, value);
    case ThresholdMetric::Cv:
        return withAxisValue(std::move(spec), CurveAxis::Cv, value);
    case ThresholdMetric::SloScale:
        return withAxisValue(std::move(spec), CurveAxis::SloScale, value);
    }
    return spec;
}

double batchMeansHalfWidth(const std::vector<double>& values, int batches)
{
    // Student's t at 97.5% for batches - 1 degrees of freedom; batches of consecutive requests carry the bursts'
    // correlation inside them, which a binomial interval over single requests would ignore.
    static const double t975[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                                  2.228, 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093};
    if (batches < 2 || batches > 20 || values.size() < static_cast<std::size_t>(batches))
        return std::nan("");
    const std::size_t n = values.size(), b = static_cast<std::size_t>(batches);
    std::vector<double> means;
    for (std::size_t k = 0; k < b; ++k) {
        const std::size_t from = k * n / b, to = (k + 1) * n / b;
        double sum = 0;
        for (std::size_t i = from; i < to; ++i)
            sum += values[i];
        means.push_back(sum / double(to - from));
    }
    double mean = 0;
    for (double m : means)
        mean += m;
    mean /= double(b);
    double var = 0;
    for (double m : means)
        var += (m - mean) * (m - mean);
    var /= double(b - 1);
    return t975[b - 1] * std::sqrt(var / double(b));
}

namespace {

ThresholdProbe runProbe(const ServingSpec& base, const std::string& method, ThresholdMetric metric, double value,
                        const ThresholdOptions& options, const std::stop_token& stop)
{
    ServingSpec spec = withThresholdValue(base, metric, value);
    spec.method = method;
    auto setup = prepareServing(spec);
    ProfileCache cache(setup->problem);
    ThresholdProbe probe;
    probe.value = metric == ThresholdMetric::Devices ? double(spec.gpus) : value;
    probe.requests = static_cast<long long>(setup->workload.requests.size());
    // Too few devices for some model's memory: it cannot be served at all, so the probe misses (the placement
    // search would refuse the problem).
    for (const auto& inst : setup->problem.instances)
        if (cache.minimalGpus(inst.kind) == 0)
            return probe;
    util::Progress progress;
    progress.stop = stop;
    const ServingSearch found =
        searchServing(spec, *setup, cache, &progress, options.stopAtTarget ? options.target : 2.0);
    std::vector<double> outcome; // per request in arrival order: 1 served within its SLO, 0 not
    long long served = 0;
    for (const SimResult& sim : found.sims) {
        served += sim.served;
        for (double l : sim.latencyS)
            outcome.push_back(std::isnan(l) ? 0.0 : 1.0);
    }
    probe.attainment = probe.requests ? double(served) / double(probe.requests) : 1.0;
    probe.halfWidth = batchMeansHalfWidth(outcome);
    probe.searchS = found.searchS;
    probe.meets = probe.attainment >= options.target;
    return probe;
}

/** One method's search: the bracket between the value known to meet and the one known to miss. */
struct Search
{
    ThresholdResult result;
    double easy = 0, hard = 0; // the bracket: easy meets, hard misses (after the first round)
    bool done = false;
    std::vector<double> pending; // values of this round
};

bool closeEnough(ThresholdMetric metric, double a, double b, double tolerance)
{
    const double lo = std::min(a, b), hi = std::max(a, b);
    if (metric == ThresholdMetric::Devices && hi - lo <= 1)
        return true;
    return hi <= lo * (1 + tolerance);
}

/** Values strictly inside (easy, hard), geometrically spaced; devices rounded and distinct. */
std::vector<double> interior(ThresholdMetric metric, double easy, double hard, int count)
{
    std::vector<double> out;
    for (int j = 1; j <= count; ++j) {
        double v = easy * std::pow(hard / easy, double(j) / double(count + 1));
        if (metric == ThresholdMetric::Devices) {
            v = std::round(v);
            if (v == easy || v == hard || (!out.empty() && v == out.back()))
                continue;
        }
        out.push_back(v);
    }
    return out;
}

} // namespace

std::vector<ThresholdResult> searchThresholds(const ServingSpec& base, ThresholdMetric metric,
                                              const std::vector<std::string>& methods, const ThresholdOptions& options,
                                              const util::Progress* progress)
{
    if (!(options.lo > 0) || !(options.hi > options.lo))
        throw Error("", "range",
                    fmt::format("expected 0 < from < to for the {} search, got {} .. {}", thresholdMetricName(metric),
                                options.lo, options.hi));
    if (!(options.target > 0 && options.target <= 1))
        throw Error("", "target", fmt::format("expected an attainment in (0, 1], got {}", options.target));
    if (options.probesPerRound < 1)
        throw Error("", "probes", "expected at least one probe per round");
    const auto started = std::chrono::steady_clock::now();
    const bool rises = attainmentRises(metric);
    std::vector<Search> searches(methods.size());
    for (std::size_t k = 0; k < methods.size(); ++k) {
        searches[k].result.method = methods[k];
        searches[k].result.metric = metric;
        searches[k].result.target = options.target;
        searches[k].easy = rises ? options.hi : options.lo;
        searches[k].hard = rises ? options.lo : options.hi;
        searches[k].pending = {searches[k].easy, searches[k].hard};
    }
    const std::stop_token stop = progress ? progress->stop : std::stop_token{};
    for (int round = 0; round <= options.maxRounds; ++round) {
        // Every pending probe of every search, on one pool.
        std::vector<std::pair<std::size_t, double>> work;
        for (std::size_t k = 0; k < searches.size(); ++k)
            for (double v : searches[k].pending)
                work.emplace_back(k, v);
        if (work.empty())
            break;
        std::vector<ThresholdProbe> probes(work.size());
        std::atomic<std::size_t> nextItem{0};
        std::exception_ptr failure;
        std::mutex failureLock;
        util::runWorkers(options.threads, work.size(), [&] {
            for (std::size_t i = nextItem++; i < work.size(); i = nextItem++) {
                try {
                    if (stop.stop_requested())
                        throw Cancelled();
                    probes[i] = runProbe(base, methods[work[i].first], metric, work[i].second, options, stop);
                } catch (...) {
                    const std::lock_guard lock(failureLock);
                    if (!failure)
                        failure = std::current_exception();
                }
            }
        });
        if (failure)
            std::rethrow_exception(failure);
        for (std::size_t k = 0; k < searches.size(); ++k) {
            Search& s = searches[k];
            std::vector<ThresholdProbe> mine;
            for (std::size_t i = 0; i < work.size(); ++i)
                if (work[i].first == k)
                    mine.push_back(probes[i]);
            s.result.probes.insert(s.result.probes.end(), mine.begin(), mine.end());
            s.pending.clear();
            if (round == 0) {
                // mine = {easy end, hard end}
                if (!mine[0].meets) {
                    s.result.missed = mine[0].value;
                    s.done = true;
                } else if (mine[1].meets) {
                    s.result.value = mine[1].value;
                    s.done = true;
                } else {
                    s.easy = mine[0].value;
                    s.hard = mine[1].value;
                }
            } else {
                // From the easy end toward the hard one: the last that meets before the first that misses.
                std::sort(mine.begin(), mine.end(),
                          [&](const auto& a, const auto& b) { return rises ? a.value > b.value : a.value < b.value; });
                for (const auto& p : mine) {
                    if (!p.meets) {
                        s.hard = p.value;
                        break;
                    }
                    s.easy = p.value;
                }
            }
            if (s.done)
                continue;
            s.result.value = s.easy;
            s.result.missed = s.hard;
            if (closeEnough(metric, s.easy, s.hard, options.relativeTolerance) || round == options.maxRounds) {
                s.done = true;
                continue;
            }
            s.pending = interior(metric, s.easy, s.hard, options.probesPerRound);
            if (s.pending.empty())
                s.done = true;
        }
        if (progress)
            (*progress)(double(round + 1) / double(options.maxRounds + 1));
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::vector<ThresholdResult> out;
    for (auto& s : searches) {
        s.result.wallS = wall;
        out.push_back(std::move(s.result));
    }
    return out;
}

} // namespace orrery::serve
