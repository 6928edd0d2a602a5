#pragma once

#include "results/run_entry.h"
#include "results/run_metrics.h"

#include <QAbstractTableModel>

namespace orrery::gui {

/** One row per compared run: the metrics of RunMetrics, formatted; Qt::UserRole gives raw numbers. */
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
        Rho,
        Cost,
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
        RunMetrics metrics;
    };
    std::vector<Row> m_rows;
};

} // namespace orrery::gui
