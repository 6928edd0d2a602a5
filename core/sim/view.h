#pragma once

#include "sim/cluster_state.h"
#include "sim/policy_options.h"
#include "sim/prepared_workload.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace orrery::sim {

namespace detail {
class Engine;
}

/** Profiling: holds GPUs without progress (Decision::profile); Dropped: given up by the policy, never finishes. */
enum class JobStatus : std::uint8_t { Future, Queued, Running, Done, Profiling, Dropped };

/**
 * What a policy sees: time, the cluster and who runs where, the queue, and
 * per job its static data (demand, work, rates), status, GPUs, attained
 * service and progress. Read-only; valid during one callback.
 */
class View
{
public:
    explicit View(const detail::Engine& engine) : m_e(&engine) {}

    double nowS() const;
    const PreparedWorkload& workload() const;
    const ClusterState& state() const;
    /** The options the run simulates under that a policy may read (round length, Gavel semantics). */
    const PolicyOptions& options() const;
    std::uint64_t seed() const;
    /** Name the policy was run under (for error messages). */
    const std::string& policyName() const;

    int typeCount() const { return workload().typeCount(); }
    int freeGpus(int type) const { return state().freeGpus(type); }
    int totalGpus(int type) const { return workload().gpusOfType(type); }

    int jobCount() const { return workload().jobCount(); }
    const SimJob& job(int j) const { return workload().job(j); }
    JobStatus status(int j) const;
    /** GPUs job j holds now (empty when not running). */
    const std::vector<int>& gpusOf(int j) const;
    /** Sim type of its GPUs: -1 none, -2 several types. */
    int typeOf(int j) const;
    /** GPU-seconds held so far (Tiresias' attained service), up to now. */
    double attainedGpuS(int j) const;
    /** Work left, up to now. */
    double remainingWork(int j) const;
    /** Fraction of the work done. */
    double progress(int j) const { return 1.0 - remainingWork(j) / job(j).work; }
    /** Current rate in work units per second (0 when not running). */
    double currentRate(int j) const;
    /** When its current allocation began; -1 when not running. */
    double allocatedSinceS(int j) const;
    /** First start, -1 if never. */
    double startS(int j) const;
    double endS(int j) const;

    // ---- elastic jobs and locality (docs/simulator.md, "Elastic jobs", "Locality") ----
    /** Whether job j runs on exactly `count` GPUs (its elastic range); the engine refuses any other count. */
    bool accepts(int j, int count) const { return workload().accepts(j, count); }
    /**
     * Rate job j would have on exactly these GPUs: type mix, nodes spanned, locality, its range (a count
     * above its max gives the rate at its max). The engine commits this same rate when it is assigned them.
     */
    double rateOn(int j, const std::vector<int>& gpus) const { return rateOn(j, gpus, Plan{}); }
    /** The same under `plan` at the job's progress now (docs/simulator.md, "Plans and progress-dependent rates"). */
    double rateOn(int j, const std::vector<int>& gpus, const Plan& plan) const;
    /** The plan of the GPUs job j holds (the default plan when it holds none or was given none). */
    const Plan& planOf(int j) const;
    /** Allocation changes after its first start, so far. */
    int restarts(int j) const;
    /** Seconds of restart pause paid so far, up to now (time lost to restarts). */
    double restartLostS(int j) const;

    // Estimates (docs/simulator.md, "Estimates versus truth"): the truth times the job's seeded error factor
    // (options.estimate_error); exactly the truth by default. Policies that are not oracles read these.
    /** Total work as the scheduler believes it. */
    double estimatedWork(int j) const;
    /** Work left as the scheduler believes it. */
    double estimatedRemainingWork(int j) const;
    /** Run time alone on its best allocation (SimJob::idealS) as the scheduler believes it. */
    double estimatedDurationS(int j) const;
    /** The run time the user stated as the job's maximum (max_runtime_s), -1 when none: not its true work. */
    double userMaxRuntimeS(int j) const;

    // Lifecycle and SLOs (docs/simulator.md, "Job lifecycle", "Deadlines and SLOs").
    /** Times it lost all its GPUs while running, so far. */
    int suspensions(int j) const;
    /** Its deadlines with their rewards, earliest first (empty when none). */
    const std::vector<workload::Deadline>& deadlines(int j) const;
    const std::string& sloClass(int j) const;

    /** Arrived, unfinished jobs without GPUs (unordered: policies keep their own order). */
    const std::vector<int>& queued() const;
    /** Jobs holding GPUs (unordered). */
    const std::vector<int>& running() const;

private:
    const detail::Engine* m_e;
};

/**
 * A policy's answer, applied as it is built: release jobs, assign GPUs. Every
 * assignment is validated; a GPU that is busy, out of range, or a job given
 * GPUs twice raises orrery::Error naming the policy. The simulator commits the
 * result (intervals, restarts, rates) when the policy returns. Jobs the policy
 * does not touch keep their GPUs.
 */
class Decision
{
public:
    explicit Decision(detail::Engine& engine) : m_e(&engine) {}

    const View& view() const;

    /** GPUs job j could get now: its demand on one type (`type`, or -1 = first allowed type that has room, then a
     *  mix of allowed types). Empty when impossible. */
    std::vector<int> findGpus(int j, int type = -1) const;
    /** findGpus + assign; false when there is no room. */
    bool place(int j, int type = -1);
    void assign(int j, const std::vector<int>& gpus);
    /** Assigns GPUs under a plan (docs/simulator.md, "Plans and progress-dependent rates"): a plan whose
     *  fields are negative, whose stages do not match pp, or that needs more GPUs than given is an error.
     *  Giving a running job its own GPUs back under another plan is a switch (restart, switch cost). The
     *  two-argument form assigns the default plan. */
    void assign(int j, const std::vector<int>& gpus, const Plan& plan);
    /** Takes job j's GPUs away (preemption); it goes back to the queue. */
    void release(int j);
    /** Asks for another decision at time t (e.g. when a running job crosses a priority threshold). */
    void wakeAt(double t);

    // Lifecycle (docs/simulator.md, "Job lifecycle").
    /** Gives job j up (e.g. it cannot meet its deadline): it frees its GPUs, leaves the run and is counted as
     *  dropped, never as finished. A waiting, running or profiling job may be dropped. */
    void drop(int j, const std::string& reason);
    /** Gives waiting job j `gpus` to hold for `seconds` without progress (profiling); then it returns to the
     *  queue, the policy hears Policy::onProfileEnd and decides at once (it may give the same GPUs back). */
    void profile(int j, const std::vector<int>& gpus, double seconds);

    // Records (docs/simulator.md, "Records"): kept in the run and the store without a schema change.
    /** Attaches a value to job j's record (a per-job extra: name -> JSON value). */
    void annotate(int j, const std::string& name, double value);
    void annotate(int j, const std::string& name, const std::string& text);
    /** Appends (now, value) to the named series of the run. */
    void record(const std::string& series, double value);
    /** The policy's reason for job j's state from now on, e.g. why it waits ("behind an earlier job in FIFO
     *  order"): recorded as a `reason` job event when it differs from the job's last reason since it last
     *  started, so a policy may repeat itself at no cost in the record. Keep the text stable (no counts that
     *  change at every decision): a viewer adds the cluster's state at the moment. */
    void explain(int j, std::string_view reason);
    /** Records a job event `auction` at now with `detail` (a market step the job took part in, e.g. Themis' bid,
     *  PF bundle and hidden payment), for views that replay a policy's auctions. */
    void noteAuction(int j, const std::string& detail);

private:
    detail::Engine* m_e;
};

} // namespace orrery::sim
