#pragma once

#include "sweep/sweep_table.h"

#include <QAbstractTableModel>

#include <vector>

namespace orrery::gui {

/** The sweeps of the open run store: name, points done / total, axes. */
class SweepListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Points, Axes, ColumnCount };
    static constexpr int NameRole = Qt::UserRole + 1;

    explicit SweepListModel(QObject* parent = nullptr);
    void setSweeps(std::vector<sweep::SweepOverview> sweeps);
    const std::vector<sweep::SweepOverview>& sweeps() const { return m_sweeps; }
    int rowOf(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<sweep::SweepOverview> m_sweeps;
};

} // namespace orrery::gui
