#pragma once

#include "sweep/sweep_table.h"
#include "sweeps/sweep_metric.h"

#include <QAbstractTableModel>

namespace orrery::gui {

/**
 * A sweep's points, one row each: the stored run's id, one column per axis (in the spec's order), its status, then
 * the metrics of kSweepMetrics. Qt::DisplayRole is formatted like the comparison table; SortRole gives raw values
 * (numbers sort as numbers, an undefined metric last); kCsvRole gives headers with units and values in them.
 */
class SweepPointsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int RunIdRole = Qt::UserRole + 2;

    explicit SweepPointsModel(QObject* parent = nullptr);
    void setTable(sweep::SweepTable table);
    const sweep::SweepTable& table() const { return m_table; }

    int axisColumn(int axis) const { return 1 + axis; }
    int statusColumn() const { return 1 + static_cast<int>(m_table.axes.size()); }
    int metricColumn(SweepMetric metric) const { return statusColumn() + 1 + static_cast<int>(metric); }
    /** The row of the point whose run is `runId`; -1 when none. */
    int rowOfRun(qint64 runId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    sweep::SweepTable m_table;
};

} // namespace orrery::gui
