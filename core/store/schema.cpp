#include "store/schema.h"

#include "store/migration_data.h"
#include "store/sqlite.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace orrery::store {

namespace {

// Forward migrations, in order: migration i takes user_version i to i + 1.
// Never edit one that has shipped; append a new one instead. docs/database.md
// describes the resulting schema.
constexpr std::array<std::string_view, 11> kMigrations = {
    R"SQL(
CREATE TABLE scenarios (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    json          TEXT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX scenarios_by_hash ON scenarios (content_hash);

CREATE TABLE runs (
    id                  INTEGER PRIMARY KEY,
    scenario_id         INTEGER NOT NULL REFERENCES scenarios (id),
    policy              TEXT NOT NULL,
    options_json        TEXT NOT NULL DEFAULT '{}',
    seed                INTEGER NOT NULL,
    orrery_version      TEXT NOT NULL,
    started_at          TEXT NOT NULL,
    finished_at         TEXT,
    status              TEXT NOT NULL CHECK (status IN ('running', 'completed', 'cancelled', 'failed')),
    error               TEXT,
    writer_pid          INTEGER,
    writer_start_ticks  INTEGER,
    writer_host         TEXT,
    total_gpus          INTEGER NOT NULL,
    job_count           INTEGER,
    finished_job_count  INTEGER,
    avg_jct_s           REAL,
    makespan_s          REAL,
    cost_usd            REAL,
    sim_wall_s          REAL,
    events              INTEGER
);
CREATE INDEX runs_by_scenario ON runs (scenario_id);
CREATE INDEX runs_by_status ON runs (status);

CREATE TABLE run_gpu_types (
    run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    type_index        INTEGER NOT NULL,
    gpu_type          TEXT NOT NULL,
    gpus              INTEGER NOT NULL,
    usd_per_gpu_hour  REAL NOT NULL,
    PRIMARY KEY (run_id, type_index)
) WITHOUT ROWID;

CREATE TABLE gpus (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    gpu         INTEGER NOT NULL,
    node_index  INTEGER NOT NULL,
    node        TEXT NOT NULL,
    gpu_type    TEXT NOT NULL,
    PRIMARY KEY (run_id, gpu)
) WITHOUT ROWID;

CREATE TABLE jobs (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    job_index    INTEGER NOT NULL,
    job_id       TEXT NOT NULL,
    model        TEXT NOT NULL,
    user         TEXT NOT NULL,
    arrival_s    REAL NOT NULL,
    start_s      REAL,
    end_s        REAL,
    gpus         INTEGER NOT NULL,
    gpu_type     TEXT NOT NULL,
    restarts     INTEGER NOT NULL,
    gpu_seconds  REAL NOT NULL,
    cost_usd     REAL NOT NULL,
    ideal_s      REAL NOT NULL,
    nodes        INTEGER NOT NULL DEFAULT 0,
    demand       INTEGER NOT NULL DEFAULT 0,
    excluded_from_average INTEGER NOT NULL DEFAULT 0,
    queue_s      REAL GENERATED ALWAYS AS (start_s - arrival_s) VIRTUAL,
    jct_s        REAL GENERATED ALWAYS AS (end_s - arrival_s) VIRTUAL,
    PRIMARY KEY (run_id, job_index)
) WITHOUT ROWID;

CREATE TABLE intervals (
    run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    interval_index  INTEGER NOT NULL,
    job_index       INTEGER NOT NULL,
    gpu             INTEGER NOT NULL,
    start_s         REAL NOT NULL,
    end_s           REAL NOT NULL,
    PRIMARY KEY (run_id, interval_index)
) WITHOUT ROWID;

CREATE TABLE utilization (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    sample_index  INTEGER NOT NULL,
    time_s        REAL NOT NULL,
    busy_gpus     INTEGER NOT NULL,
    busy_by_type  TEXT NOT NULL,
    PRIMARY KEY (run_id, sample_index)
) WITHOUT ROWID;

CREATE TABLE decisions (
    run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    decision_index  INTEGER NOT NULL,
    sim_time_s      REAL NOT NULL,
    wall_s          REAL NOT NULL,
    queued          INTEGER NOT NULL,
    running         INTEGER NOT NULL,
    PRIMARY KEY (run_id, decision_index)
) WITHOUT ROWID;
)SQL",
    // 2: a one-row-per-run overview for the sqlite3 shell and pandas, and the policy filter of the GUI's run list.
    R"SQL(
CREATE INDEX runs_by_policy ON runs (policy);
CREATE VIEW run_overview AS
SELECT r.id AS run_id, s.name AS scenario, s.content_hash AS scenario_hash, r.policy, r.status, r.error, r.seed,
       r.orrery_version, r.started_at, r.finished_at, r.total_gpus, r.job_count, r.finished_job_count, r.avg_jct_s,
       r.makespan_s, r.cost_usd, r.sim_wall_s
FROM runs r JOIN scenarios s ON s.id = r.scenario_id;
)SQL",
    // 3: the long series become column chunks (column_chunks.h); convertToColumnChunks() moves old rows over.
    R"SQL(
CREATE TABLE interval_chunks (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index   INTEGER NOT NULL,
    first_record  INTEGER NOT NULL,
    records       INTEGER NOT NULL,
    job_index     BLOB NOT NULL,
    gpu           BLOB NOT NULL,
    start_s       BLOB NOT NULL,
    end_s         BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);

CREATE TABLE utilization_chunks (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index   INTEGER NOT NULL,
    first_record  INTEGER NOT NULL,
    records       INTEGER NOT NULL,
    gpu_types     INTEGER NOT NULL,
    time_s        BLOB NOT NULL,
    busy_gpus     BLOB NOT NULL,
    busy_by_type  BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);

CREATE TABLE decision_chunks (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index   INTEGER NOT NULL,
    first_record  INTEGER NOT NULL,
    records       INTEGER NOT NULL,
    sim_time_s    BLOB NOT NULL,
    wall_s        BLOB NOT NULL,
    queued        BLOB NOT NULL,
    running       BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);
)SQL",
    // 4: the per-job records become column chunks too (convertJobsToChunks() moves old rows over), so that
    // storing a run costs less than simulating it; the loadable extension app/sqlite gives plain rows back.
    R"SQL(
CREATE TABLE job_chunks (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index   INTEGER NOT NULL,
    first_record  INTEGER NOT NULL,
    records       INTEGER NOT NULL,
    labels        BLOB NOT NULL,
    job_index     BLOB NOT NULL,
    job_id        BLOB NOT NULL,
    model         BLOB NOT NULL,
    user          BLOB NOT NULL,
    gpu_type      BLOB NOT NULL,
    arrival_s     BLOB NOT NULL,
    start_s       BLOB NOT NULL,
    end_s         BLOB NOT NULL,
    gpus          BLOB NOT NULL,
    restarts      BLOB NOT NULL,
    nodes         BLOB NOT NULL,
    demand        BLOB NOT NULL,
    excluded_from_average BLOB NOT NULL,
    gpu_seconds   BLOB NOT NULL,
    cost_usd      BLOB NOT NULL,
    ideal_s       BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);
)SQL",
    // 5: extensible records (job_records.h): per-job extras as a JSON object, per-job events, named series over
    // time, so later systems add keys, kinds and names rather than tables; and the runs' dropped-job count
    // (fillDroppedCounts() sets it for the runs stored before jobs could be dropped).
    R"SQL(
CREATE TABLE job_extras (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    job_index  INTEGER NOT NULL,
    extras     TEXT NOT NULL CHECK (json_valid(extras) AND json_type(extras) = 'object'),
    PRIMARY KEY (run_id, job_index)
) WITHOUT ROWID;

CREATE TABLE job_events (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    event_index  INTEGER NOT NULL,
    job_index    INTEGER NOT NULL,
    time_s       REAL NOT NULL,
    kind         TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, event_index)
) WITHOUT ROWID;

CREATE TABLE run_series (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    point_index   INTEGER NOT NULL,
    series_index  INTEGER NOT NULL,
    time_s        REAL NOT NULL,
    value         REAL NOT NULL,
    PRIMARY KEY (run_id, name, point_index)
) WITHOUT ROWID;

ALTER TABLE runs ADD COLUMN dropped_job_count INTEGER;

DROP VIEW run_overview;
CREATE VIEW run_overview AS
SELECT r.id AS run_id, s.name AS scenario, s.content_hash AS scenario_hash, r.policy, r.status, r.error, r.seed,
       r.orrery_version, r.started_at, r.finished_at, r.total_gpus, r.job_count, r.finished_job_count,
       r.dropped_job_count, r.avg_jct_s, r.makespan_s, r.cost_usd, r.sim_wall_s
FROM runs r JOIN scenarios s ON s.id = r.scenario_id;
)SQL",
    // 6: job events become column chunks like the other per-record series (a preemptive 100,000-job run has
    // ~300,000 of them); convertEventsToChunks() moves old rows over. The extension's job_events reads them.
    R"SQL(
CREATE TABLE event_chunks (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index   INTEGER NOT NULL,
    first_record  INTEGER NOT NULL,
    records       INTEGER NOT NULL,
    labels        BLOB NOT NULL,
    job_index     BLOB NOT NULL,
    time_s        BLOB NOT NULL,
    kind          BLOB NOT NULL,
    detail        BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);
)SQL",
    // 7: rate segments (docs/simulator.md, "Plans and progress-dependent rates") as column chunks: a run has
    // about one per allocation, too many for a row each. Runs stored before have none.
    R"SQL(
CREATE TABLE rate_segment_chunks (
    run_id         INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index    INTEGER NOT NULL,
    first_record   INTEGER NOT NULL,
    records        INTEGER NOT NULL,
    job_index      BLOB NOT NULL,
    start_s        BLOB NOT NULL,
    end_s          BLOB NOT NULL,
    rate_per_s     BLOB NOT NULL,
    samples_per_s  BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);
)SQL",
    // 8: sweeps (docs/sweeps.md) and merging stores (`runs merge`). Every run gets a random uid, the identity that
    // makes a merge idempotent whatever the file is called; runs stored before get one here. A sweep point is a
    // normal run tagged with its sweep, its point key and its axis values; run_sources keeps where a merged run came
    // from.
    R"SQL(
ALTER TABLE runs ADD COLUMN uid TEXT;
UPDATE runs SET uid = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX runs_by_uid ON runs (uid);

CREATE TABLE sweeps (
    name        TEXT PRIMARY KEY,
    axes        TEXT NOT NULL CHECK (json_valid(axes) AND json_type(axes) = 'array'),
    spec        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE sweep_points (
    run_id     INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    sweep      TEXT NOT NULL,
    point_key  TEXT NOT NULL,
    axes       TEXT NOT NULL CHECK (json_valid(axes) AND json_type(axes) = 'object')
);
CREATE INDEX sweep_points_by_key ON sweep_points (sweep, point_key);

CREATE TABLE run_sources (
    run_id         INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    source_file    TEXT NOT NULL,
    source_run_id  INTEGER NOT NULL,
    merged_at      TEXT NOT NULL
);
)SQL",
    // 9: apps (Themis, docs/simulator.md "Apps"): each job's app as an int32 label code per job, like model and
    // user; NULL in chunks of runs without apps, which is every run stored before.
    R"SQL(
ALTER TABLE job_chunks ADD COLUMN app BLOB;
)SQL",
    // 10: serving runs (AlpaServe, docs/serving.md): not training runs (no scenario, jobs or GPUs timeline), so tables
    // of their own. The inputs as the spec's JSON (the authority when a run is reloaded) with the fields a query
    // filters on beside it; the placement as groups and replicas; the outcome per run, per model and as CDF samples.
    R"SQL(
CREATE TABLE serving_runs (
    id                INTEGER PRIMARY KEY,
    uid               TEXT NOT NULL UNIQUE,
    created_at        TEXT NOT NULL,
    orrery_version    TEXT NOT NULL,
    method            TEXT NOT NULL,
    model_set         TEXT NOT NULL,
    gpu_type          TEXT NOT NULL,
    gpus              INTEGER NOT NULL,
    rate_per_s        REAL,
    cv                REAL,
    slo_scale         REAL NOT NULL,
    spec              TEXT NOT NULL CHECK (json_valid(spec) AND json_type(spec) = 'object'),
    segments          INTEGER NOT NULL,
    requests          INTEGER NOT NULL,
    served            INTEGER NOT NULL,
    rejected          INTEGER NOT NULL,
    unplaced          INTEGER NOT NULL,
    attainment        REAL NOT NULL,
    latency_mean_s    REAL,
    latency_p50_s     REAL,
    latency_p90_s     REAL,
    latency_p99_s     REAL,
    latency_max_s     REAL,
    search_s          REAL NOT NULL,
    simulations       INTEGER NOT NULL,
    candidates        INTEGER NOT NULL
);
CREATE INDEX serving_runs_by_method ON serving_runs (method);

CREATE TABLE serving_groups (
    run_id       INTEGER NOT NULL REFERENCES serving_runs (id) ON DELETE CASCADE,
    segment      INTEGER NOT NULL,
    group_index  INTEGER NOT NULL,
    stages       INTEGER NOT NULL,
    intra        INTEGER NOT NULL,
    utilisation  REAL NOT NULL,
    PRIMARY KEY (run_id, segment, group_index)
) WITHOUT ROWID;

CREATE TABLE serving_replicas (
    run_id         INTEGER NOT NULL,
    segment        INTEGER NOT NULL,
    group_index    INTEGER NOT NULL,
    replica_index  INTEGER NOT NULL,
    model          TEXT NOT NULL,
    PRIMARY KEY (run_id, segment, group_index, replica_index),
    FOREIGN KEY (run_id, segment, group_index) REFERENCES serving_groups (run_id, segment, group_index)
        ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE serving_models (
    run_id       INTEGER NOT NULL REFERENCES serving_runs (id) ON DELETE CASCADE,
    model_index  INTEGER NOT NULL,
    model        TEXT NOT NULL,
    kind         TEXT NOT NULL,
    slo_s        REAL NOT NULL,
    requests     INTEGER NOT NULL,
    served       INTEGER NOT NULL,
    attainment   REAL GENERATED ALWAYS AS (CASE WHEN requests > 0 THEN CAST(served AS REAL) / requests ELSE 1.0 END)
                 VIRTUAL,
    PRIMARY KEY (run_id, model_index)
) WITHOUT ROWID;

CREATE TABLE serving_latency_cdf (
    run_id       INTEGER NOT NULL REFERENCES serving_runs (id) ON DELETE CASCADE,
    point_index  INTEGER NOT NULL,
    latency_s    REAL NOT NULL,
    fraction     REAL NOT NULL,
    PRIMARY KEY (run_id, point_index)
) WITHOUT ROWID;
)SQL",
    // 11: the GPU layout becomes a column chunk like the records (one row per run instead of one per GPU: the gpus
    // rows were a fifth of what storing a sweep's point cost, docs/performance.md "Sweeps"); convertGpusToChunks()
    // moves old rows over. The extension's gpus table reads them.
    R"SQL(
CREATE TABLE gpu_chunks (
    run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    chunk_index   INTEGER NOT NULL,
    first_record  INTEGER NOT NULL,
    records       INTEGER NOT NULL,
    labels        BLOB NOT NULL,
    node_index    BLOB NOT NULL,
    node          BLOB NOT NULL,
    gpu_type      BLOB NOT NULL,
    PRIMARY KEY (run_id, chunk_index)
);
)SQL",
};

} // namespace

int schemaVersion()
{
    return static_cast<int>(kMigrations.size());
}

void migrate(Connection& db, int target)
{
    if (target < 0)
        target = schemaVersion();
    // Cheap check first, so an up-to-date store takes no write lock (several readers and writers may open it).
    if (db.queryInt("PRAGMA user_version") >= target)
        return;
    for (;;) {
        // Another process may be creating or migrating the same file: the version is read again under the
        // write lock (BEGIN IMMEDIATE), so each migration runs once, by whoever gets the lock first.
        Transaction tx(db);
        const int version = static_cast<int>(db.queryInt("PRAGMA user_version"));
        if (version >= target)
            return; // done by another process meanwhile; nothing written, the transaction rolls back
        // A new file is created in one transaction (it is still in rollback-journal mode, run_store.cpp, where each
        // commit costs four fdatasync calls: one commit per migration was 30-40 ms of a sweep's start on this VM,
        // docs/performance.md "Sweeps"); a store is upgraded one migration per transaction.
        const int upTo = version == 0 ? target : version + 1;
        for (int v = version; v < upTo; ++v) {
            db.exec(kMigrations[static_cast<std::size_t>(v)]);
            migrateData(db, v + 1);
        }
        // Pragmas take no parameters; both values are integers formatted here, never user text.
        db.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
        db.exec(fmt::format("PRAGMA user_version = {}", upTo));
        tx.commit();
    }
}

} // namespace orrery::store
