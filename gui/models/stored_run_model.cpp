#include "models/stored_run_model.h"

#include "results/palette.h"

#include <QColor>

namespace orrery::gui {

namespace {

// The same formatting as the comparison table (MetricsTableModel): one run, one text, wherever it is shown.
QString duration(const std::optional<double>& s)
{
    return s ? formatDuration(*s) : QStringLiteral("-");
}

} // namespace

StoredRunModel::StoredRunModel(QObject* parent) : QAbstractTableModel(parent)
{}

void StoredRunModel::setRecords(std::vector<store::RunRecord> records)
{
    beginResetModel();
    m_records = std::move(records);
    endResetModel();
}

int StoredRunModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_records.size());
}

int StoredRunModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StoredRunModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& r = m_records[static_cast<std::size_t>(index.row())];
    if (role == StoreIdRole)
        return static_cast<qlonglong>(r.id);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Id:
            return static_cast<qlonglong>(r.id);
        case Scenario:
            return QString::fromStdString(r.scenarioName);
        case Policy:
            return QString::fromStdString(r.policy);
        case Status:
            return QString::fromLatin1(store::toString(r.status));
        case Jobs:
            return r.jobCount ? QStringLiteral("%1/%2").arg(r.finishedJobCount.value_or(0)).arg(*r.jobCount)
                              : QStringLiteral("-");
        case MeanJct:
            return duration(r.avgJctS);
        case Makespan:
            return duration(r.makespanS);
        case Cost:
            return r.costUsd ? formatCost(*r.costUsd) : QStringLiteral("-");
        case Started:
            return QString::fromStdString(r.startedAt).replace(QLatin1Char('T'), QLatin1Char(' '));
        default:
            return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Id:
            return static_cast<qlonglong>(r.id);
        case Jobs:
            return r.jobCount.value_or(-1);
        case MeanJct:
            return r.avgJctS.value_or(-1);
        case Makespan:
            return r.makespanS.value_or(-1);
        case Cost:
            return r.costUsd.value_or(-1);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ForegroundRole && (r.status == store::RunStatus::Failed || r.status == store::RunStatus::Cancelled))
        return QColor(0xc0, 0x1c, 0x28);
    if (role == Qt::ToolTipRole && !r.error.empty())
        return QString::fromStdString(r.error);
    if (role == Qt::TextAlignmentRole && index.column() != Scenario && index.column() != Policy &&
        index.column() != Status && index.column() != Started)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant StoredRunModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
        return {};
    switch (section) {
    case Id:
        return tr("Id");
    case Scenario:
        return tr("Scenario");
    case Policy:
        return tr("Policy");
    case Status:
        return tr("Status");
    case Jobs:
        return tr("Finished");
    case MeanJct:
        return tr("Mean JCT");
    case Makespan:
        return tr("Makespan");
    case Cost:
        return tr("Cost");
    case Started:
        return tr("Started (UTC)");
    default:
        return {};
    }
}

} // namespace orrery::gui
