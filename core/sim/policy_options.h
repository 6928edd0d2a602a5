#pragma once

namespace orrery::sim {

/**
 * The scenario options a policy may read (View::options()), as the run simulates them: the scenario's
 * options with the policy's own overrides applied. Everything else a scenario holds (sources, locality
 * tables, files) is the engine's business; a policy that needs more takes a parameter of its own.
 */
struct PolicyOptions
{
    /** Lease length of round-based policies, seconds (options.round_s). */
    double roundS = 360;
    /** Gavel's simulator semantics (options.gavel_compat; docs/simulator.md, "Gavel compatibility"). */
    bool gavelCompat = false;
};

} // namespace orrery::sim
