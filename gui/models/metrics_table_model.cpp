#include "models/metrics_table_model.h"

#include "results/palette.h"

namespace orrery::gui {

MetricsTableModel::MetricsTableModel(QObject* parent) : QAbstractTableModel(parent)
{}

void MetricsTableModel::setRuns(const QVector<const RunEntry*>& runs)
{
    beginResetModel();
    m_rows.clear();
    for (const auto* r : runs)
        if (r && r->result)
            m_rows.push_back({r->name, QString::fromStdString(r->result->policy), RunMetrics::of(*r->result)});
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
    const RunMetrics& m = r.metrics;
    if (role == Qt::UserRole) {
        switch (index.column()) {
        case Run:
            return r.name;
        case Policy:
            return r.policy;
        case Jobs:
            return m.jobs;
        case Finished:
            return m.finished;
        case MeanJct:
            return m.meanJctS;
        case MedianJct:
            return m.medianJctS;
        case P95Jct:
            return m.p95JctS;
        case MeanQueue:
            return m.meanQueueS;
        case Makespan:
            return m.makespanS;
        case Utilisation:
            return m.utilisation;
        case Rho:
            return m.meanRho;
        case Cost:
            return m.costUsd;
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
            return m.finished;
        case MeanJct:
            return formatDuration(m.meanJctS);
        case MedianJct:
            return formatDuration(m.medianJctS);
        case P95Jct:
            return formatDuration(m.p95JctS);
        case MeanQueue:
            return formatDuration(m.meanQueueS);
        case Makespan:
            return formatDuration(m.makespanS);
        case Utilisation:
            return QStringLiteral("%1%").arg(100 * m.utilisation, 0, 'f', 1);
        case Rho:
            return m.meanRho > 0 ? QString::number(m.meanRho, 'f', 2) : QStringLiteral("-");
        case Cost:
            return QStringLiteral("$%1").arg(m.costUsd, 0, 'f', 0);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Jobs)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant MetricsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
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
    case Rho:
        return tr("Mean \u03c1");
    case Cost:
        return tr("Cost");
    }
    return {};
}

} // namespace orrery::gui
