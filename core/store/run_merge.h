#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::store {

class RunStore;

/** What a merge did, per source and in all. */
struct MergeReport
{
    struct Source
    {
        std::string path;
        int copied = 0;                ///< runs copied into the destination
        int alreadyPresent = 0;        ///< runs the destination held already (same uid): a merge done before
        int stillRunning = 0;          ///< runs a live process is still writing: left out, merge again later
        int servingCopied = 0;         ///< serving runs (schema 10) copied
        int servingAlreadyPresent = 0; ///< serving runs the destination held already (same uid)
    };
    std::vector<Source> sources;
    int copied() const;
    int alreadyPresent() const;
    int stillRunning() const;
    int servingCopied() const;
};

/**
 * Copies every run of the `sources` stores into `destination` (`orrery-cli runs merge`, docs/database.md
 * "Merging stores"), with everything stored with it (scenario, GPUs, records, sweep tag) under a new run id.
 *
 * - Transactional: one transaction over all sources; any error (a source refused, a disk full) leaves the
 *   destination as it was.
 * - Idempotent: a run is recognised by its uid, so merging the same file again (or a copy of it, or a store
 *   that was itself merged from it) copies nothing twice.
 * - Refuses, before writing anything, a source that is not an Orrery store, is of a newer or older schema (an
 *   older one must be opened once for writing first, as for every read-only use), is damaged where it is read, or
 *   is the destination itself. Sources are opened read-only and never changed.
 * - Provenance: each copied run gets a `run_sources` row (source file, absolute, and its run id there), or keeps
 *   the one it had in its source, so a run merged twice over still names the file it was first stored in.
 * - A run whose writer is dead (left `running` by a killed process) is copied as failed/"interrupted"; one still
 *   being written by a live process is left out and counted.
 * - Serving runs (schema 10) are copied too, with their groups, replicas, models and CDF, recognised by uid alike.
 */
MergeReport mergeRunStores(RunStore& destination, const std::vector<std::string>& sources);

} // namespace orrery::store
