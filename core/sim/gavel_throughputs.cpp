#include "sim/gavel_throughputs.h"

namespace orrery::sim {

GavelThroughputs GavelThroughputs::fromFile(const std::string& path)
{
    return GavelThroughputs(
        std::make_shared<const workload::GavelThroughputTable>(workload::GavelThroughputTable::fromFile(path)));
}

GavelThroughputs GavelThroughputs::fromJsonText(const std::string& text, const std::string& fileLabel)
{
    return GavelThroughputs(std::make_shared<const workload::GavelThroughputTable>(
        workload::GavelThroughputTable::fromJsonText(text, fileLabel)));
}

double GavelThroughputs::rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const
{
    const auto* row = m_table->row(gpu.name);
    if (!row || count < 1)
        return 0;
    const auto exact = row->find({job.jobType, count});
    if (exact != row->end())
        return exact->second;
    // Largest profiled scale factor below `count`, scaled linearly.
    auto it = row->lower_bound({job.jobType, count});
    if (it == row->begin())
        return 0;
    --it;
    if (it->first.first != job.jobType)
        return 0;
    return it->second * count / it->first.second;
}

} // namespace orrery::sim
