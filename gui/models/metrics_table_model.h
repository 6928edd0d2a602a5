#pragma once

#include "metrics/metrics.h"
#include "results/run_entry.h"

#include <QAbstractTableModel>

namespace orrery::gui {

/**
 * One row per compared run: core's metrics::summarize() of the run, formatted (the GUI computes no
 * metric of its own, so this table, the Stored runs list and `orrery-cli` agree); Qt::UserRole gives
 * the raw numbers (seconds, dollars, utilisation 0..1).
 */
class MetricsTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Run,
        Policy,
        Jobs,
        Finished,
        MeanJct,
        MedianJct,
        P95Jct,
        MeanQueue,
        Makespan,
        Utilisation,
        Slowdown,
        FinishTimeFairness,
        Cost,            ///< what the jobs' busy GPU-hours cost
        ProvisionedCost, ///< the cluster's price for the makespan, busy or idle
        ColumnCount
    };
    explicit MetricsTableModel(QObject* parent = nullptr);

    void setRuns(const QVector<const RunEntry*>& runs);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString name;
        QString policy;
        metrics::Summary metrics;
        double provisionedUsd = -1; ///< -1: the run's cluster is unknown
    };
    std::vector<Row> m_rows;
};

} // namespace orrery::gui
