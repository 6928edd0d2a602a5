#include "sweeps/sweep_list_model.h"

#include <QStringList>

namespace orrery::gui {

SweepListModel::SweepListModel(QObject* parent) : QAbstractTableModel(parent)
{}

void SweepListModel::setSweeps(std::vector<sweep::SweepOverview> sweeps)
{
    beginResetModel();
    m_sweeps = std::move(sweeps);
    endResetModel();
}

int SweepListModel::rowOf(const QString& name) const
{
    for (std::size_t i = 0; i < m_sweeps.size(); ++i)
        if (QString::fromStdString(m_sweeps[i].name) == name)
            return static_cast<int>(i);
    return -1;
}

int SweepListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_sweeps.size());
}

int SweepListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SweepListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const auto& s = m_sweeps[static_cast<std::size_t>(index.row())];
    if (role == NameRole)
        return QString::fromStdString(s.name);
    if (role == Qt::ToolTipRole && index.column() == Points) {
        QString tip = tr("%1 of the points are stored completed").arg(s.completed);
        if (s.stored > s.completed)
            tip += tr("; %1 failed or unfinished (run the sweep again to retry them)").arg(s.stored - s.completed);
        if (!s.total)
            tip += tr("; the total needs the spec's base scenario, which cannot be read here");
        return tip;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(s.name);
    case Points:
        return s.total ? QStringLiteral("%1 / %2").arg(s.completed).arg(*s.total)
                       : QStringLiteral("%1 / ?").arg(s.completed);
    case Axes: {
        QStringList axes;
        for (const auto& a : s.axes)
            axes << QString::fromStdString(a);
        return axes.join(QStringLiteral(" x "));
    }
    }
    return {};
}

QVariant SweepListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Sweep");
    case Points:
        return tr("Points done / total");
    case Axes:
        return tr("Axes");
    }
    return {};
}

} // namespace orrery::gui
