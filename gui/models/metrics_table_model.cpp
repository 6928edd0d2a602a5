#include "models/metrics_table_model.h"

#include "export/csv_export.h"

#include "results/palette.h"

#include <array>

namespace orrery::gui {

MetricsTableModel::MetricsTableModel(QObject* parent) : QAbstractTableModel(parent)
{}

void MetricsTableModel::setRuns(const QVector<const RunEntry*>& runs)
{
    beginResetModel();
    m_rows.clear();
    for (const auto* r : runs)
        if (r && r->result)
            m_rows.push_back({r->name, QString::fromStdString(r->result->policy), metrics::summarize(*r->result),
                              r->cluster ? r->cluster->priceUsdPerHour() * r->result->makespanS / 3600.0 : -1});
    endResetModel();
}

int MetricsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MetricsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetricsTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    const metrics::Summary& m = r.metrics;
    if (role == kCsvRole && index.column() == Utilisation)
        return 100.0 * m.utilization; // the unit its CSV header names, as the table shows it
    if (role == Qt::UserRole || role == kCsvRole) {
        switch (index.column()) {
        case Run:
            return r.name;
        case Policy:
            return r.policy;
        case Jobs:
            return m.jobs;
        case Finished:
            return m.jobsCompleted;
        case MeanJct:
            return m.avgJctS;
        case MedianJct:
            return m.p50JctS;
        case P95Jct:
            return m.p95JctS;
        case MeanQueue:
            return m.avgQueueS;
        case Makespan:
            return m.makespanS;
        case Utilisation:
            return m.utilization;
        case Slowdown:
            return m.avgSlowdown;
        case FinishTimeFairness:
            return m.avgFtfRho;
        case Cost:
            return m.costUsd;
        case ProvisionedCost:
            return r.provisionedUsd >= 0 ? QVariant(r.provisionedUsd) : QVariant();
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Run:
            return r.name;
        case Policy:
            return r.policy;
        case Jobs:
            return m.jobs;
        case Finished:
            return m.jobsCompleted;
        case MeanJct:
            return formatDuration(m.avgJctS);
        case MedianJct:
            return formatDuration(m.p50JctS);
        case P95Jct:
            return formatDuration(m.p95JctS);
        case MeanQueue:
            return formatDuration(m.avgQueueS);
        case Makespan:
            return formatDuration(m.makespanS);
        case Utilisation:
            return formatPercent(m.utilization);
        case Slowdown:
            return m.avgSlowdown > 0 ? QString::number(m.avgSlowdown, 'f', 2) : QStringLiteral("-");
        case FinishTimeFairness:
            return m.avgFtfRho > 0 ? QString::number(m.avgFtfRho, 'f', 2) : QStringLiteral("-");
        case Cost:
            return formatCost(m.costUsd);
        case ProvisionedCost:
            return r.provisionedUsd >= 0 ? formatCost(r.provisionedUsd) : QStringLiteral("-");
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Jobs)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant MetricsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == kCsvRole) {
        static constexpr std::array<const char*, ColumnCount> names{"run",           "policy",
                                                                    "jobs",          "finished",
                                                                    "mean_jct_s",    "median_jct_s",
                                                                    "p95_jct_s",     "mean_queueing_s",
                                                                    "makespan_s",    "utilisation_pct",
                                                                    "mean_slowdown", "mean_ftf_rho",
                                                                    "cost_usd",      "provisioned_cost_usd"};
        if (section >= 0 && section < ColumnCount)
            return QString::fromLatin1(names[static_cast<std::size_t>(section)]);
        return {};
    }
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case Slowdown:
            return tr("Mean over finished jobs of JCT / ideal run time (the job alone on its best allocation)");
        case FinishTimeFairness:
            return tr("Finish-time fairness (Themis): JCT / the JCT on a 1/N share of the cluster, N the jobs "
                      "contending; above 1 a job did worse than its fair share");
        case MeanQueue:
            return tr("Mean time from arrival to first start, over started jobs");
        case Utilisation:
            return tr("Busy GPU-hours / (GPUs x makespan)");
        case Cost:
            return tr("What the jobs' busy GPU-hours cost at each GPU type's price per hour");
        case ProvisionedCost:
            return tr("The whole cluster's price per hour for the makespan: what a planner pays whether the GPUs "
                      "are busy or idle");
        default:
            return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Run:
        return tr("Run");
    case Policy:
        return tr("Policy");
    case Jobs:
        return tr("Jobs");
    case Finished:
        return tr("Finished");
    case MeanJct:
        return tr("Mean JCT");
    case MedianJct:
        return tr("Median JCT");
    case P95Jct:
        return tr("p95 JCT");
    case MeanQueue:
        return tr("Mean queueing");
    case Makespan:
        return tr("Makespan");
    case Utilisation:
        return tr("Utilisation");
    case Slowdown:
        return tr("Mean slowdown");
    case FinishTimeFairness:
        return tr("Mean FTF \u03c1");
    case Cost:
        return tr("Cost (busy)");
    case ProvisionedCost:
        return tr("Cost (provisioned)");
    }
    return {};
}

} // namespace orrery::gui
