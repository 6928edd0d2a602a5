#pragma once

// Serving runs in the run store (schema version 10, docs/database.md "Serving runs"): a serve::ServingRun written to
// and read back from the serving_runs, serving_groups, serving_replicas, serving_models and serving_latency_cdf
// tables. A stored run reads back equal to what was written (doubles bit for bit).

#include "serve/serving_run.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orrery::store {

class Connection;

/** Stores `run` in one transaction: new id, uid, created_at and orrery_version (also set in `run`); returns the id. */
std::int64_t saveServingRun(Connection& db, serve::ServingRun& run);

/** A stored serving run's summary: `serve runs list`, the GUI's list of stored serving runs. */
struct ServingRunRow
{
    std::int64_t id = 0;
    std::string createdAt;
    std::string method;
    std::string modelSet;
    std::string models; ///< `bert-1.3b:32,...`
    std::string gpuType;
    int gpus = 0;
    std::optional<double> ratePerS; ///< NULL for trace traffic
    std::optional<double> cv;
    double sloScale = 0;
    long long requests = 0;
    long long served = 0;
    double attainment = 0;
    std::optional<double> p99S;
    int groups = 0; ///< of the first segment
};

/** Every stored serving run, oldest first (`method` non-empty: only that method's). */
std::vector<ServingRunRow> listServingRuns(Connection& db, const std::string& method = {});

/** The whole run; orrery::Error naming the file when there is no run `id` or its spec cannot be read. */
serve::ServingRun loadServingRun(Connection& db, std::int64_t id);

/** Deletes the run and its rows; false when there is none. */
bool deleteServingRun(Connection& db, std::int64_t id);

} // namespace orrery::store
