#pragma once

// What Themis (Mahajan et al., NSDI'20) and its baselines as Themis ran them share (../shared/specs/themis-crius.md
// A.5, A.8 and choices 9, 13-15): apps of jobs, GPU leases, the N_avg bookkeeping behind rho, and each app's own
// scheduler that splits the GPUs it holds among its jobs. A policy says only who gets which offered GPUs at a
// resource-available event (AppLeasePolicy::allocate); docs/simulator.md, "Themis" and "Themis' baselines".

#include "sched/registry.h"

#include "util/portable_random.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace orrery::sched {

/** `lease_s`, the lease length every app-level policy takes (600 s: Themis' default, choice 15). */
ParamSpec leaseParam();

class AppLeasePolicy : public Policy
{
public:
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    static constexpr double kRhoMax = 1e6; ///< cap on reported rho (spec choice 3)

    explicit AppLeasePolicy(double leaseS) : m_leaseS(leaseS) {}

    /** Leases end, the offered GPUs go out (allocate), every active app splits what it holds, the engine is told
     *  the jobs whose GPUs changed, and the next lease expiry is the next wake-up. */
    void schedule(sim::Decision& d) final;

protected:
    struct App
    {
        std::string name;
        std::vector<int> jobs;
        double arrivalS = kInf;
        double integralAtArrival = 0; ///< of the active-app count, for N_avg
        bool arrived = false;
    };

    /** How the app scheduler splits a set of GPUs among its app's jobs, and what that is worth. */
    struct Split
    {
        std::vector<std::pair<int, std::vector<int>>> jobGpus; ///< (job, GPUs) of the jobs that get some
        double remainingS = 0; ///< estimated time for the app's arrived jobs to finish (infinity: none can run)
    };

    /** One resource-available event. */
    struct Round
    {
        double nowS = 0;
        std::vector<int> offered;           ///< GPUs without a live lease, ascending
        std::vector<std::vector<int>> held; ///< per app, the GPUs it keeps under live leases
        std::vector<std::vector<int>> won;  ///< per app, what allocate() grants it (a new lease each)
        std::vector<char> active;           ///< per app
    };

    /** Grants offered GPUs (round.won); a GPU may go to one app at most. Only GPUs of round.offered. */
    virtual void allocate(sim::Decision& d, Round& round) = 0;
    /**
     * Why the jobs of app a wait when the app got no GPU this round (docs/simulator.md, "Why a job waits"). The
     * default: nothing was offered, or what was went to apps ahead of it in the policy's order.
     */
    virtual std::string whyAppWaits(int a, const Round& round) const;

    double leaseS() const { return m_leaseS; }
    const std::vector<App>& apps() const { return m_apps; }
    const App& app(int a) const { return m_apps[static_cast<std::size_t>(a)]; }
    int appCount() const { return static_cast<int>(m_apps.size()); }

    bool active(const sim::View& v, int a) const;
    /** N_avg: the time-weighted number of active apps since the app's arrival (spec A.5, choice 6). */
    double nAvg(int a, double now) const;
    /** Jobs of app a that can take GPUs now (waiting or running). */
    std::vector<int> liveJobs(const sim::View& v, int a) const;
    /** A serverless job without a declared range asks for its request (per type), as under every baseline. */
    bool fixedRequest(const sim::View& v, int j) const;
    /** The most GPUs job j can use (Themis' job_demand_max: its declared max_gpus). */
    int maxUsable(const sim::View& v, int j) const;
    /** GPUs app a could use beyond `holding`: its live jobs' maxima minus what it holds. */
    int unmet(const sim::View& v, int a, int holding) const;
    /** Serial GPU-seconds of job j left, as the scheduler believes (linear speedup from its ideal run). */
    double serialLeftS(const sim::View& v, int j) const;
    /** T_id = T_cluster x N_avg (Equations 1-2 over the app's jobs), from estimates. */
    double tIdS(const sim::View& v, int a, double now) const;
    /** The GPUs of `pool` ordered to pack: preferred nodes first, then nodes holding the most of them, GPU id. */
    std::vector<int> packed(const sim::View& v, std::vector<int> pool, const std::set<int>& preferNodes = {}) const;
    /** The app scheduler (spec choice 9); docs/simulator.md, "Themis", "rho of an allocation". */
    Split split(const sim::View& v, int a, const std::vector<int>& gpus) const;
    /** rho(gpus) = (now - arrival + remaining(gpus)) / T_id, capped at kRhoMax; infinity when no job can run. */
    double rhoOf(const sim::View& v, int a, const std::vector<int>& gpus, double now) const;
    /** The same rho from a remaining time already known (the split's, or an agent's report of it). */
    double rhoFromRemaining(const sim::View& v, int a, double remainingS, double now) const;
    /** The GPUs of `group` that app a's jobs would use with what it holds and has won (at most its unmet demand). */
    std::vector<int> usableOf(const sim::View& v, int a, const Round& round, const std::vector<int>& group) const;

    /** Fisher-Yates on the run's seeded portable stream, so runs are the same on every platform. */
    template <typename T> void shuffle(std::vector<T>& items)
    {
        for (std::size_t i = items.size(); i > 1; --i) {
            const auto j = static_cast<std::size_t>(m_rng->uniform() * static_cast<double>(i));
            std::swap(items[i - 1], items[std::min(j, i - 1)]);
        }
    }

private:
    double m_leaseS;
    std::vector<App> m_apps;
    std::vector<int> m_appOf;
    std::vector<double> m_expiry; ///< per GPU: its lease's end (-inf: never leased)
    std::vector<int> m_leaseApp;  ///< per GPU: the app holding its lease, -1 none
    std::vector<int> m_holderJob; ///< per GPU: the job of that app running on it, -1 none (idle)
    double m_lastS = 0;
    double m_integral = 0; ///< of the active-app count since t = 0
    int m_activeCount = 0;
    std::optional<util::PortableRandom> m_rng;

    void buildApps(const sim::View& v);
    void advanceActive(const sim::View& v, double now);
};

} // namespace orrery::sched
