#include "results/wait_reason_text.h"

#include <QCoreApplication>
#include <QStringList>

namespace orrery::gui {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("WaitReason", text);
}
} // namespace

std::vector<int> freeGpusByType(const sim::RunResult& run, const ClusterSnapshot& snapshot)
{
    std::vector<int> free(run.gpuTypes.size(), 0);
    for (std::size_t g = 0; g < snapshot.jobOnGpu.size() && g < run.gpuType.size(); ++g) {
        const int t = run.gpuType[g];
        if (snapshot.jobOnGpu[g] < 0 && t >= 0 && static_cast<std::size_t>(t) < free.size())
            ++free[static_cast<std::size_t>(t)];
    }
    return free;
}

QString waitReasonText(const sim::RunResult& run, const metrics::WaitReasons& reasons, const ClusterSnapshot& snapshot,
                       int job)
{
    const std::vector<int> free = freeGpusByType(run, snapshot);
    QStringList parts;
    for (std::size_t t = 0; t < free.size(); ++t)
        if (free[t] > 0)
            parts << QStringLiteral("%1 x %2").arg(free[t]).arg(QString::fromStdString(run.gpuTypes[t]));
    const QString freeText =
        parts.isEmpty() ? tr("no GPU free now") : tr("free now: %1").arg(parts.join(QStringLiteral(", ")));
    const std::string_view given = reasons.at(job, snapshot.timeS);
    if (!given.empty())
        return QStringLiteral("%1; %2").arg(QString::fromUtf8(given.data(), static_cast<qsizetype>(given.size())),
                                            freeText);
    const auto& rec = run.jobs[static_cast<std::size_t>(job)];
    return tr("the policy gave no reason; asks %1 GPUs; %2").arg(rec.demand > 0 ? rec.demand : rec.gpus).arg(freeText);
}

} // namespace orrery::gui
