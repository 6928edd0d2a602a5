#include "sched/registry.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "sim/switch_cost.h"

#include <fmt/format.h>

namespace orrery::sched {

namespace {

template <auto Factory> std::unique_ptr<Policy> withoutParams(const PolicyParams&)
{
    return Factory();
}

// Options every policy may override for its own run, so a sweep can vary them per policy.
std::vector<ParamSpec> commonParams()
{
    ParamSpec round{"round_s",
                    ParamType::Number,
                    "",
                    1e-3,
                    1e9,
                    {},
                    1,
                    16,
                    false,
                    "lease length in seconds of round-based policies and of every policy under gavel_compat; "
                    "default: the scenario's options.round_s"};
    ParamSpec restart{"restart_penalty_s",
                      ParamType::Number,
                      "",
                      0,
                      1e9,
                      {},
                      1,
                      16,
                      false,
                      "pause in seconds each time a running job's allocation changes; "
                      "default: the scenario's options.restart_penalty_s"};
    ParamSpec model{"restart_model",
                    ParamType::Choice,
                    "",
                    0,
                    0,
                    sim::restartModels(),
                    1,
                    16,
                    false,
                    "form of the pause a changed allocation costs (docs/simulator.md, \"Switch costs\"); "
                    "default: the scenario's options.restart_model"};
    ParamSpec load{"load_time_s",
                   ParamType::Number,
                   "",
                   0,
                   1e9,
                   {},
                   1,
                   16,
                   false,
                   "pause in seconds at a job's first start; default: the scenario's options.load_time_s"};
    return {round, restart, model, load};
}

PolicyInfo entry(std::string name, std::string description, PolicyTraits traits,
                 std::function<std::unique_ptr<Policy>(const PolicyParams&)> make, std::vector<ParamSpec> params = {},
                 std::vector<PolicyPreset> presets = {})
{
    return {std::move(name), std::move(description), traits, std::move(make), std::move(params), std::move(presets)};
}

} // namespace

std::vector<ParamSpec> PolicyInfo::allParams() const
{
    std::vector<ParamSpec> all = params;
    if (!presets.empty()) {
        ParamSpec preset{"preset",  ParamType::Choice,
                         "default", 0,
                         0,         {"default"},
                         1,         16,
                         false,     "a named set of the parameters above:"};
        for (const auto& p : presets) {
            preset.choices.push_back(p.name);
            preset.help += " " + p.name + " (" + p.help + ");";
        }
        preset.help.back() = '.';
        all.push_back(std::move(preset));
    }
    for (auto& c : commonParams())
        all.push_back(std::move(c));
    return all;
}

const std::vector<PolicyInfo>& registeredPolicies()
{
    // Listed explicitly (not self-registered) so that a static link keeps every policy.
    static const std::vector<PolicyInfo> policies = {
        entry("fifo", "First come, first served on any free GPUs, heterogeneity-agnostic; the head of the queue blocks",
              {}, withoutParams<makeFifo>),
        entry("fifo_perf",
              "First come, first served on the fastest GPU type that has room for the job (Gavel's FIFO_Perf)", {},
              makeFifoPerf, fifoPerfParams()),
        entry("sjf",
              "Shortest job first by estimated run time (ideal duration on its best GPU type; the truth unless "
              "estimate_error is set), non-preemptive",
              {.oracle = true}, withoutParams<makeSjf>),
        entry("tiresias", "Tiresias discretised 2D-LAS: priority queues on attained GPU-seconds, preemptive",
              {.preemptive = true}, makeTiresias, tiresiasParams(), tiresiasPresets()),
        entry("max_min_fairness",
              "Gavel's max-min fairness without throughput awareness (LAS over equal time shares), in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeMaxMinFairness>),
        entry("max_min_fairness_perf",
              "Gavel's heterogeneity-aware max-min fairness: LP over normalised throughputs (COIN-OR CLP), in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeMaxMinFairnessPerf>),
        entry("finish_time_fairness",
              "Gavel's finish-time fairness without throughput awareness: minimise the largest rho (Themis), in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeFinishTimeFairness>),
        entry("finish_time_fairness_perf",
              "Gavel's heterogeneity-aware finish-time fairness: minimise the largest rho by LP bisection, in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeFinishTimeFairnessPerf>),
        entry("min_total_duration",
              "Gavel's makespan policy without throughput awareness: smallest T letting every job finish, in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeMinTotalDuration>),
        entry("min_total_duration_perf",
              "Gavel's heterogeneity-aware makespan policy: bisection on T over LP feasibility (CLP), in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeMinTotalDurationPerf>),
        entry("max_sum_throughput_perf",
              "Gavel's total-throughput policy: LP maximising the sum of job throughputs (CLP), in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeMaxSumThroughputPerf>),
        entry("isolated", "Gavel's Isolated baseline: every job an equal static slice of each GPU type, in rounds",
              {.preemptive = true, .roundBased = true}, withoutParams<makeIsolated>),
        entry("allox",
              "Gavel's AlloX: min-cost matching of waiting jobs to GPUs minimising total completion time, "
              "kept until done once placed, in rounds",
              {.preemptive = true, .roundBased = true}, makeAllox, alloxParams()),
        entry("frenzy",
              "Frenzy: MARP memory-aware plans, HAS best-fit placement over mixed GPU types, FCFS with backfill", {},
              withoutParams<makeFrenzy>),
        entry("frenzy_exact",
              "Frenzy with HAS restricted to the best-fitting GPU memory size first (Algorithm 1 read as ==)", {},
              withoutParams<makeFrenzyExact>),
        entry("frenzy_strict", "Frenzy without backfilling: the first job that fits nowhere blocks the queue", {},
              withoutParams<makeFrenzyStrict>),
        entry(
            "opportunistic",
            "Frenzy's baseline: FCFS with backfill, a conservative GPU count, greedily on the most powerful idle GPUs",
            {}, withoutParams<makeOpportunistic>),
        // Appended: the listing keeps the order of the policies before it.
        entry("edf",
              "Earliest deadline first; drops a waiting job that cannot meet its deadline (estimated run time), "
              "non-preemptive",
              {.oracle = true}, makeEdf, edfParams()),
        entry("themis",
              "Themis: finish-time-fair partial-allocation auctions of GPU leases among apps (CBC), leftover at "
              "random",
              {.preemptive = true, .oracle = true}, makeThemis, themisParams()),
        entry("sia",
              "Sia: an ILP every 60 s over (job, GPU type, GPU count) valued by goodput, fairness exponent p, "
              "restart factor; batch-size tuning",
              {.preemptive = true}, makeSia, siaParams()),
        entry("optimus",
              "Optimus as Pollux's simulator runs it: every 60 s, GPUs one at a time to the job whose remaining time "
              "falls most",
              {.preemptive = true, .oracle = true}, makeOptimus, optimusParams()),
        entry("pollux",
              "Pollux: every 60 s a genetic search over replica placements for the best power mean (p = -1) of the "
              "jobs' goodput speed-ups, restart factor; batch-size tuning",
              {.preemptive = true}, makePollux, polluxParams()),
        // Themis' baselines as its paper ran them: greedy over apps at each lease expiry (docs/simulator.md).
        entry("gandiva", "Gandiva as Themis ran it: apps whose best bundle places best first, leases, migration",
              {.preemptive = true, .oracle = true}, makeGandiva, gandivaParams()),
        entry("tiresias_app",
              "Tiresias as Themis ran it: least attained service per app first, placement-unaware, "
              "leases",
              {.preemptive = true, .oracle = true}, makeTiresiasApp, tiresiasAppParams()),
        entry("slaq", "SLAQ as Themis ran it: apps whose loss falls most per GPU in a lease first, leases",
              {.preemptive = true, .oracle = true}, makeSlaq, slaqParams()),
        entry("srtf", "Shortest remaining time first over apps (Themis' baseline), leases",
              {.preemptive = true, .oracle = true}, makeSrtf, srtfParams()),
        entry("srsf", "Shortest remaining service first over apps, one GPU at a time (Themis' baseline), leases",
              {.preemptive = true, .oracle = true}, makeSrsf, srsfParams()),
        entry("optimus_app",
              "Optimus as Themis ran it: apps whose throughput scales most with one more GPU first, one GPU at a "
              "time, leases",
              {.preemptive = true, .oracle = true}, makeOptimusApp, optimusAppParams()),
    };
    return policies;
}

const PolicyInfo& policyInfo(const std::string& name, const std::string& where)
{
    std::vector<std::string> names;
    for (const auto& p : registeredPolicies()) {
        if (p.name == name)
            return p;
        names.push_back(p.name);
    }
    std::string message = "unknown policy \"" + name + "\"";
    const std::string guess = io::closestMatch(name, names);
    if (!guess.empty())
        message += " (did you mean \"" + guess + "\"?)";
    else {
        message += "; known:";
        for (const auto& n : names)
            message += " " + n;
    }
    throw Error("", where, message);
}

ResolvedPolicy resolvePolicy(const std::string& specText, const std::string& where)
{
    const PolicySpec spec = splitPolicySpec(specText, where);
    ResolvedPolicy r;
    r.info = &policyInfo(spec.name, where);
    const std::vector<ParamSpec> schema = r.info->allParams();

    const auto find = [&](const std::string& key) -> const ParamSpec& {
        for (const auto& p : schema)
            if (p.name == key)
                return p;
        std::vector<std::string> names;
        for (const auto& p : schema)
            names.push_back(p.name);
        std::string message = fmt::format("policy {} has no parameter \"{}\"", spec.name, key);
        const std::string guess = io::closestMatch(key, names);
        if (!guess.empty())
            message += fmt::format(" (did you mean \"{}\"?)", guess);
        message += names.empty() ? "; it takes none" : fmt::format("; it takes: {}", fmt::join(names, ", "));
        throw Error("", where, message);
    };

    // Given values, checked; then the preset's values under them; then the defaults.
    std::vector<std::pair<const ParamSpec*, ParamValue>> given;
    for (const auto& [key, text] : spec.params) {
        const ParamSpec& p = find(key);
        given.emplace_back(&p, parseParamValue(p, text, spec.name, where));
    }
    const PolicyPreset* preset = nullptr;
    for (const auto& [p, v] : given)
        if (p->name == "preset")
            for (const auto& candidate : r.info->presets)
                if (candidate.name == v.text)
                    preset = &candidate;

    for (const auto& p : schema) {
        // The value this parameter has when the spec does not name it.
        std::optional<ParamValue> base;
        if (preset)
            for (const auto& [key, text] : preset->values)
                if (key == p.name)
                    base = parseParamValue(p, text, spec.name, "preset " + preset->name);
        if (!base && !p.defaultValue.empty())
            base = parseParamValue(p, p.defaultValue, spec.name, "default");

        const ParamValue* mine = nullptr;
        for (const auto& [gp, v] : given)
            if (gp == &p)
                mine = &v;
        if (mine) {
            r.params.set(p.name, *mine, true);
            if (!base || !(*base == *mine))
                r.given.emplace_back(p.name, formatParamValue(p, *mine));
        } else if (base) {
            r.params.set(p.name, *base, preset != nullptr);
        }
    }
    r.label = spec.name;
    for (const auto& [key, text] : r.given)
        r.label += ":" + key + "=" + text;
    return r;
}

std::unique_ptr<Policy> makePolicy(const std::string& spec)
{
    ResolvedPolicy r = resolvePolicy(spec);
    auto policy = r.info->make(r.params);
    Policy::Overrides overrides;
    if (r.params.has("round_s"))
        overrides.roundS = r.params.number("round_s");
    if (r.params.has("restart_penalty_s"))
        overrides.restartPenaltyS = r.params.number("restart_penalty_s");
    if (r.params.has("restart_model"))
        overrides.restartModel = r.params.choice("restart_model");
    if (r.params.has("load_time_s"))
        overrides.loadTimeS = r.params.number("load_time_s");
    policy->configure(r.label, overrides);
    return policy;
}

} // namespace orrery::sched
