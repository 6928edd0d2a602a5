#include "sim/engine.h"

#include <nlohmann/json.hpp>

namespace orrery::sim {

// ---- View -------------------------------------------------------------------------------------------------
double View::nowS() const
{
    return m_e->now;
}
const PreparedWorkload& View::workload() const
{
    return m_e->w;
}
const ClusterState& View::state() const
{
    return m_e->state;
}
const PolicyOptions& View::options() const
{
    return m_e->policyOptions;
}
std::uint64_t View::seed() const
{
    return m_e->seed;
}
const std::string& View::policyName() const
{
    return m_e->policyName;
}
JobStatus View::status(int j) const
{
    return m_e->status[static_cast<std::size_t>(j)];
}
const std::vector<int>& View::gpusOf(int j) const
{
    return m_e->gpus[static_cast<std::size_t>(j)];
}
int View::typeOf(int j) const
{
    int type = -1;
    for (int g : gpusOf(j)) {
        const int t = workload().typeOfGpu(g);
        if (type == -1)
            type = t;
        else if (type != t)
            return -2;
    }
    return type;
}
double View::attainedGpuS(int j) const
{
    return m_e->attainedAt(j);
}
double View::remainingWork(int j) const
{
    return m_e->remainingAt(j);
}
double View::currentRate(int j) const
{
    return m_e->rate[static_cast<std::size_t>(j)];
}
double View::allocatedSinceS(int j) const
{
    return m_e->allocSince[static_cast<std::size_t>(j)];
}
double View::startS(int j) const
{
    return m_e->startS[static_cast<std::size_t>(j)];
}
double View::endS(int j) const
{
    return m_e->endS[static_cast<std::size_t>(j)];
}
double View::rateOn(int j, const std::vector<int>& gpus, const Plan& plan) const
{
    // At the job's progress now, so that a progress-dependent job is answered what the engine would commit.
    const double progress = job(j).progressDependent && status(j) != JobStatus::Future ? this->progress(j) : 0.0;
    return workload().allocationRate(j, gpus, plan, progress).rate;
}
const Plan& View::planOf(int j) const
{
    return m_e->planOf(j);
}
int View::restarts(int j) const
{
    return m_e->restartsOf(j);
}
double View::restartLostS(int j) const
{
    return m_e->restartLostAt(j);
}
double View::estimatedWork(int j) const
{
    return m_e->estimateFactors.empty() ? job(j).work : job(j).work * m_e->estimateFactor(j);
}
double View::estimatedRemainingWork(int j) const
{
    return m_e->estimateFactors.empty() ? remainingWork(j) : remainingWork(j) * m_e->estimateFactor(j);
}
double View::estimatedDurationS(int j) const
{
    return m_e->estimateFactors.empty() ? job(j).idealS : job(j).idealS * m_e->estimateFactor(j);
}
double View::userMaxRuntimeS(int j) const
{
    const auto& m = workload().jobs()[static_cast<std::size_t>(j)].maxRuntimeS;
    return m ? *m : -1.0;
}
int View::suspensions(int j) const
{
    return m_e->resultJob(j).suspensions;
}
const std::vector<workload::Deadline>& View::deadlines(int j) const
{
    return m_e->resultJob(j).deadlines;
}
const std::string& View::sloClass(int j) const
{
    return m_e->resultJob(j).sloClass;
}
const std::vector<int>& View::queued() const
{
    return m_e->queued;
}
const std::vector<int>& View::running() const
{
    return m_e->running;
}

// ---- Decision ---------------------------------------------------------------------------------------------
const View& Decision::view() const
{
    return m_e->view;
}
std::vector<int> Decision::findGpus(int j, int type) const
{
    return m_e->findGpus(j, type);
}
bool Decision::place(int j, int type)
{
    auto list = m_e->findGpus(j, type);
    if (list.empty())
        return false;
    m_e->assign(j, list);
    return true;
}
void Decision::assign(int j, const std::vector<int>& gpus)
{
    m_e->assign(j, gpus);
}
void Decision::assign(int j, const std::vector<int>& gpus, const Plan& plan)
{
    m_e->assign(j, gpus, true, plan);
}
void Decision::release(int j)
{
    m_e->release(j);
}
void Decision::wakeAt(double t)
{
    m_e->wakeAt(t);
}
void Decision::drop(int j, const std::string& reason)
{
    m_e->drop(j, reason);
}
void Decision::profile(int j, const std::vector<int>& gpus, double seconds)
{
    m_e->profile(j, gpus, seconds);
}
void Decision::annotate(int j, const std::string& name, double value)
{
    m_e->annotate(j, name, nlohmann::json(value).dump());
}
void Decision::annotate(int j, const std::string& name, const std::string& text)
{
    m_e->annotate(j, name, nlohmann::json(text).dump());
}
void Decision::record(const std::string& series, double value)
{
    m_e->record(series, value);
}
void Decision::explain(int j, std::string_view reason)
{
    m_e->explain(j, reason);
}
void Decision::noteAuction(int j, const std::string& detail)
{
    m_e->noteAuction(j, detail);
}
} // namespace orrery::sim
