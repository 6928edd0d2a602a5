#pragma once

#include "sched/policy_params.h"
#include "sim/policy.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace orrery::sched {

// The interface lives beside View and Decision in core/sim; every policy here implements it.
using sim::Policy;

/** What a policy is, for tests, docs and the GUI, instead of lists of names. */
struct PolicyTraits
{
    bool preemptive = false; ///< may take GPUs from a running job
    bool roundBased = false; ///< decides every round_s seconds (leases) rather than on events
    bool oracle = false;     ///< reads the true duration or work of jobs, which a real scheduler cannot know
};

/** A named set of parameter values (e.g. the semantics of a peer simulator). */
struct PolicyPreset
{
    std::string name;
    std::string help;
    std::vector<std::pair<std::string, std::string>> values;
};

struct PolicyInfo
{
    std::string name;
    std::string description; ///< one line, for `orrery-cli policies`
    PolicyTraits traits;
    std::function<std::unique_ptr<Policy>(const PolicyParams&)> make;
    std::vector<ParamSpec> params; ///< the policy's own parameters
    std::vector<PolicyPreset> presets;

    /** Every parameter the policy takes: its own, `preset` when it has presets, then round_s and restart_penalty_s. */
    std::vector<ParamSpec> allParams() const;
};

/** Every registered policy, in a stable order. */
const std::vector<PolicyInfo>& registeredPolicies();
/** The policy of that name; throws orrery::Error with a "did you mean" suggestion for unknown names. */
const PolicyInfo& policyInfo(const std::string& name, const std::string& where = "policy");

/** A checked policy spec: which policy, every parameter's value, and the run's canonical label. */
struct ResolvedPolicy
{
    const PolicyInfo* info = nullptr;
    PolicyParams params;
    /** `name[:key=value]...` listing, in schema order, only what differs from the defaults: equal configurations
     *  get equal labels, and a spec without parameters is labelled by the bare name, as before parameters existed. */
    std::string label;
    /** The given (non-default) parameters as (name, canonical text), in schema order. */
    std::vector<std::pair<std::string, std::string>> given;
};

/**
 * Checks `spec` (`tiresias`, `tiresias:queue_thresholds_s=3600,36000:backfill_limit=0`): an unknown policy, an
 * unknown parameter or a value out of range throws orrery::Error at `where`, naming the policy, the parameter and
 * what is allowed. Values apply over the preset's, which apply over the defaults.
 */
ResolvedPolicy resolvePolicy(const std::string& spec, const std::string& where = "policy");
/** A fresh instance for a spec; its label() is the canonical one. */
std::unique_ptr<Policy> makePolicy(const std::string& spec);

// One factory per policy file.
std::unique_ptr<Policy> makeFifo();
std::unique_ptr<Policy> makeFifoPerf(const PolicyParams& params);
std::vector<ParamSpec> fifoPerfParams();
std::unique_ptr<Policy> makeSjf();
std::unique_ptr<Policy> makeEdf(const PolicyParams& params);
std::vector<ParamSpec> edfParams();
std::unique_ptr<Policy> makeTiresias(const PolicyParams& params);
std::vector<ParamSpec> tiresiasParams();
std::vector<PolicyPreset> tiresiasPresets();
std::unique_ptr<Policy> makeThemis(const PolicyParams& params);
std::vector<ParamSpec> themisParams();
std::unique_ptr<Policy> makeMaxMinFairness();
std::unique_ptr<Policy> makeMaxMinFairnessPerf();
std::unique_ptr<Policy> makeFrenzy();
std::unique_ptr<Policy> makeFrenzyExact();
std::unique_ptr<Policy> makeFrenzyStrict();
std::unique_ptr<Policy> makeOpportunistic();
std::unique_ptr<Policy> makeFinishTimeFairness();
std::unique_ptr<Policy> makeFinishTimeFairnessPerf();
std::unique_ptr<Policy> makeMinTotalDuration();
std::unique_ptr<Policy> makeMinTotalDurationPerf();
std::unique_ptr<Policy> makeMaxSumThroughputPerf();
std::unique_ptr<Policy> makeIsolated();
std::unique_ptr<Policy> makeAllox(const PolicyParams& params);
std::vector<ParamSpec> alloxParams();
std::unique_ptr<Policy> makeSia(const PolicyParams& params);
std::vector<ParamSpec> siaParams();
std::unique_ptr<Policy> makeOptimus(const PolicyParams& params);
std::vector<ParamSpec> optimusParams();
std::unique_ptr<Policy> makePollux(const PolicyParams& params);
std::vector<ParamSpec> polluxParams();
// Themis' baselines (app_greedy.h).
std::unique_ptr<Policy> makeGandiva(const PolicyParams& params);
std::vector<ParamSpec> gandivaParams();
std::unique_ptr<Policy> makeTiresiasApp(const PolicyParams& params);
std::vector<ParamSpec> tiresiasAppParams();
std::unique_ptr<Policy> makeSlaq(const PolicyParams& params);
std::vector<ParamSpec> slaqParams();
std::unique_ptr<Policy> makeSrtf(const PolicyParams& params);
std::vector<ParamSpec> srtfParams();
std::unique_ptr<Policy> makeSrsf(const PolicyParams& params);
std::vector<ParamSpec> srsfParams();
std::unique_ptr<Policy> makeOptimusApp(const PolicyParams& params);
std::vector<ParamSpec> optimusAppParams();

} // namespace orrery::sched
