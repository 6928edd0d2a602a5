#include "sweeps/sweep_points_model.h"

#include "export/csv_export.h"
#include "sweeps/sweep_axis_values.h"

#include <QColor>

#include <limits>

namespace orrery::gui {

SweepPointsModel::SweepPointsModel(QObject* parent) : QAbstractTableModel(parent)
{}

void SweepPointsModel::setTable(sweep::SweepTable table)
{
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

int SweepPointsModel::rowOfRun(qint64 runId) const
{
    for (std::size_t i = 0; i < m_table.points.size(); ++i)
        if (m_table.points[i].row.runId == runId)
            return static_cast<int>(i);
    return -1;
}

int SweepPointsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_table.points.size());
}

int SweepPointsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : statusColumn() + 1 + static_cast<int>(kSweepMetrics.size());
}

QVariant SweepPointsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const auto& p = m_table.points[static_cast<std::size_t>(index.row())];
    const int c = index.column();
    if (role == RunIdRole)
        return static_cast<qint64>(p.row.runId);
    if (c == 0) {
        if (role == Qt::DisplayRole || role == SortRole || role == kCsvRole)
            return static_cast<qint64>(p.row.runId);
        return {};
    }
    if (c < statusColumn()) {
        const std::string& axis = m_table.axes[static_cast<std::size_t>(c - 1)];
        if (role == SortRole) {
            // Numbers by value; anything else by its text.
            if (p.axes.contains(axis) && p.axes.at(axis).is_number())
                return p.axes.at(axis).get<double>();
            return sweepAxisText(p.axes, axis);
        }
        if (role == Qt::DisplayRole || role == kCsvRole) {
            const QString text = sweepAxisText(p.axes, axis);
            return role == kCsvRole && text == QStringLiteral("-") ? QString() : text;
        }
        if (role == Qt::ToolTipRole && !p.axes.contains(axis))
            return tr("This point leaves the axis out: the base scenario's value");
        return {};
    }
    if (c == statusColumn()) {
        if (role == Qt::DisplayRole || role == SortRole || role == kCsvRole)
            return QString::fromStdString(p.row.status);
        if (role == Qt::ToolTipRole && !p.row.error.empty())
            return QString::fromStdString(p.row.error);
        if (role == Qt::ForegroundRole && p.row.status != "completed")
            return QColor(0xc0, 0x1c, 0x28);
        return {};
    }
    const auto metric = kSweepMetrics[static_cast<std::size_t>(c - statusColumn() - 1)];
    const auto v = sweepMetricValue(p, metric);
    switch (role) {
    case Qt::DisplayRole:
        return v ? formatSweepMetric(metric, *v) : QStringLiteral("-");
    case SortRole:
        // Undefined values sort after every number in ascending order.
        return v ? *v : std::numeric_limits<double>::infinity();
    case kCsvRole:
        return v ? QVariant(sweepMetricCsvValue(metric, *v)) : QVariant(QString());
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant SweepPointsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role != Qt::DisplayRole && role != kCsvRole && role != Qt::ToolTipRole)
        return {};
    if (section == 0)
        return role == Qt::ToolTipRole ? tr("The point's run in the store; double-click a row to open it")
               : role == kCsvRole      ? QStringLiteral("run_id")
                                       : tr("Run");
    if (section < statusColumn())
        return role == Qt::ToolTipRole ? QVariant() : QString::fromStdString(m_table.axes[std::size_t(section - 1)]);
    if (section == statusColumn())
        return role == Qt::ToolTipRole ? QVariant() : role == kCsvRole ? QStringLiteral("status") : tr("Status");
    const auto metric = kSweepMetrics[static_cast<std::size_t>(section - statusColumn() - 1)];
    if (role == kCsvRole)
        return sweepMetricCsvName(metric);
    if (role == Qt::ToolTipRole) {
        if (metric == SweepMetric::Cost)
            return tr("What the jobs' busy GPU-hours cost at each GPU type's price per hour");
        if (metric == SweepMetric::ProvisionedCost)
            return tr("The point's cluster's price per hour for the makespan, busy or idle");
        if (metric == SweepMetric::Utilisation)
            return tr("Busy GPU-hours / (GPUs x makespan)");
        return {};
    }
    return sweepMetricName(metric);
}

} // namespace orrery::gui
