#pragma once

// AlpaServe's runtime (§4.3) as a continuous-time discrete-event simulation (docs/serving.md, "Simulator"):
// a controller sends each request to the group hosting its model with the shortest queue; each group serves
// first-come-first-served through its pipeline stages and rejects up front a request that would miss its SLO.
//
// With FCFS and known execution times, a request's whole schedule is fixed the moment it is accepted (later
// arrivals never overtake it), so the simulator handles arrivals in time order and advances each stage's
// clock; completions are the only other events and matter only for queue lengths, which each group keeps as
// a queue of finish times (non-decreasing under FCFS). O(R x (candidates + stages)) for R requests.

#include "serve/workload.h"

#include <cmath>
#include <vector>

namespace orrery::serve {

/** How long one model's query occupies each stage of a group, and the transfers between stages. */
struct StageTimes
{
    int model = 0;
    std::vector<double> stageS; ///< one per stage of the group
    std::vector<double> commS;  ///< stages - 1 transfers; they delay the query, they do not hold a stage
    /** Batching runtime: a batch of b holds each stage (1 + batchSlope x (b - 1)) x stageS (ModelProfile). */
    double batchSlope = 1;
};

struct SimGroup
{
    int stages = 1;
    std::vector<StageTimes> models; ///< the models this group hosts
};

struct SimOptions
{
    std::vector<double> sloS;     ///< per model; a request must finish within arrival + slo
    bool recordLatencies = false; ///< fill SimResult::latencyS and groupOf
    bool recordStages = false;    ///< fill SimResult::stageIntervals (tests, small runs)
    /**
     * Above 1, the batching runtime of §6.5 (batched_simulator.h) with batches of up to this many requests of one
     * model; 1: the main runtime (shortest queue, FCFS, no batching).
     */
    int maxBatch = 1;
};

struct StageInterval
{
    int request = 0;
    int group = 0;
    int stage = 0;
    double startS = 0;
    double endS = 0;
};

struct SimResult
{
    long long requests = 0;
    long long served = 0;
    long long rejected = 0; ///< by a group (would miss the SLO) or because no group hosts the model
    long long unplaced = 0; ///< part of rejected: no group hosts the model
    std::vector<long long> requestsPerModel;
    std::vector<long long> servedPerModel;
    std::vector<double> groupBusyS; ///< stage-seconds of work accepted per group
    std::vector<int> groupStages;
    double servedLatencySumS = 0; ///< finish − arrival summed over served requests (always kept)
    double spanS = 0;             ///< first arrival to last completion, or the workload's duration if longer
    std::vector<double> latencyS; ///< per request (recordLatencies): finish − arrival, NaN when rejected
    std::vector<int> groupOf;     ///< per request (recordLatencies): serving group, −1 when rejected
    std::vector<StageInterval> stageIntervals;

    /** Served within SLO over all requests (1 when there are none). */
    double attainment() const { return requests ? double(served) / double(requests) : 1.0; }
    /** Busy stage-seconds over stages × span, per group. */
    std::vector<double> groupUtilisation() const;
    /** Mean finish − arrival over served requests (0 when none). */
    double meanLatencyS() const { return served ? servedLatencySumS / double(served) : 0.0; }
};

/**
 * The main runtime, or the batching runtime when options.maxBatch > 1.
 * Throws orrery::Error when a group's stage times do not match its stage count, a model index is outside
 * the workload's models, or sloS has the wrong size.
 */
SimResult simulateRequests(const std::vector<SimGroup>& groups, const Workload& workload, const SimOptions& options);

} // namespace orrery::serve
