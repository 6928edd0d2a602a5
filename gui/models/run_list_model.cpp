#include "models/run_list_model.h"

#include "metrics/metrics.h"
#include "results/palette.h"
#include "results/run_library.h"

namespace orrery::gui {

RunListModel::RunListModel(RunLibrary* runs, QObject* parent) : QAbstractTableModel(parent), m_runs(runs)
{
    connect(runs, &RunLibrary::runAdded, this, [this] {
        const int row = static_cast<int>(m_runs->runs().size()) - 1;
        // The library appended already; announce the row after the fact as a reset-free insert.
        beginInsertRows({}, row, row);
        endInsertRows();
    });
    connect(runs, &RunLibrary::runRemoved, this, [this] {
        beginResetModel();
        endResetModel();
    });
    connect(runs, &RunLibrary::runChanged, this, [this](int id) {
        for (int r = 0; r < m_runs->runs().size(); ++r)
            if (m_runs->runs()[r].id == id)
                emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
    });
}

int RunListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_runs->runs().size());
}

int RunListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const RunEntry& r = m_runs->runs()[index.row()];
    if (role == RunIdRole)
        return r.id;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return r.name;
        case Policy:
            return r.result ? QString::fromStdString(r.result->policy) : QString();
        case Scenario:
            return r.scenarioName;
        case Jobs:
            return r.result ? static_cast<int>(r.result->jobs.size()) : 0;
        case MeanJct:
            return r.result ? formatDuration(metrics::summarize(*r.result, metrics::SummaryScope::Headline).avgJctS)
                            : QString();
        case Makespan:
            return r.result ? formatDuration(r.result->makespanS) : QString();
        case Finished:
            return r.finishedAt.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case Stored:
            return r.storeId >= 0 ? tr("#%1").arg(r.storeId) : tr("no");
        }
    }
    if (role == Qt::DecorationRole && index.column() == Name)
        return colourForIndex(r.id - 1);
    return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Run");
    case Policy:
        return tr("Policy");
    case Scenario:
        return tr("Scenario");
    case Jobs:
        return tr("Jobs");
    case MeanJct:
        return tr("Mean JCT");
    case Makespan:
        return tr("Makespan");
    case Finished:
        return tr("Finished");
    case Stored:
        return tr("Stored");
    }
    return {};
}

} // namespace orrery::gui
