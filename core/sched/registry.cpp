#include "sched/registry.h"

#include "io/error.h"
#include "io/json_reader.h"

namespace orrery::sched {

const std::vector<PolicyInfo>& registeredPolicies()
{
    // Listed explicitly (not self-registered) so that a static link keeps every policy.
    static const std::vector<PolicyInfo> policies = {
        {"fifo", "First come, first served on any free GPUs, heterogeneity-agnostic; the head of the queue blocks",
         makeFifo},
        {"fifo_perf", "First come, first served on the fastest GPU type that has room for the job (Gavel's FIFO_Perf)",
         makeFifoPerf},
        {"sjf", "Shortest job first by oracle run time (ideal duration on its best GPU type), non-preemptive",
         makeSjf},
        {"tiresias", "Tiresias discretised 2D-LAS: priority queues on attained GPU-seconds, preemptive", makeTiresias},
        {"max_min_fairness",
         "Gavel's max-min fairness without throughput awareness (LAS over equal time shares), in rounds",
         makeMaxMinFairness},
        {"max_min_fairness_perf",
         "Gavel's heterogeneity-aware max-min fairness: LP over normalised throughputs (COIN-OR CLP), in rounds",
         makeMaxMinFairnessPerf},
        {"frenzy", "Frenzy: MARP memory-aware plans, HAS best-fit placement over mixed GPU types, FCFS with backfill",
         makeFrenzy},
        {"frenzy_exact", "Frenzy with HAS restricted to the best-fitting GPU memory size first (Algorithm 1 read as ==)",
         makeFrenzyExact},
        {"frenzy_strict", "Frenzy without backfilling: the first job that fits nowhere blocks the queue",
         makeFrenzyStrict},
        {"opportunistic",
         "Frenzy's baseline: FCFS with backfill, a conservative GPU count, greedily on the most powerful idle GPUs",
         makeOpportunistic},
    };
    return policies;
}

std::unique_ptr<Policy> makePolicy(const std::string& name)
{
    std::vector<std::string> names;
    for (const auto& p : registeredPolicies()) {
        if (p.name == name)
            return p.make();
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
    throw Error("", "policy", message);
}

} // namespace orrery::sched
