#pragma once

#include <QAbstractTableModel>

namespace orrery::gui {

class ScenarioDocument;

/** Totals of the cluster by GPU type (GPUs, memory, peak TFLOP/s, $/h), with a final "All" row. */
class GpuTotalsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Type, Gpus, MemoryGiB, PeakTflops, UsdPerHour, ColumnCount };
    explicit GpuTotalsModel(ScenarioDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString type;
        int gpus = 0;
        double memoryGiB = 0;
        double peakTflops = 0;
        double usdPerHour = 0;
    };
    void rebuild();

    ScenarioDocument* m_document;
    std::vector<Row> m_rows;
};

} // namespace orrery::gui
