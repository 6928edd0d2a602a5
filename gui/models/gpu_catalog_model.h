#pragma once

#include <QAbstractTableModel>

namespace orrery::gui {

class ScenarioDocument;

/** The catalog the scenario sees (built-in + custom types), one row per type. Custom rows are marked. */
class GpuCatalogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Name,
        Display,
        Curves, // early: a calibrated type should show without scrolling the narrow dock
        Vendor,
        MemoryGiB,
        Fp16Tflops,
        Fp32Tflops,
        BandwidthGBps,
        Link,
        UsdPerHour,
        ColumnCount
    };
    static constexpr int IsCustomRole = Qt::UserRole + 1;
    /** True when the type carries measured curves (a calibration applied, docs/models/profiler.md). */
    static constexpr int IsCalibratedRole = Qt::UserRole + 2;

    explicit GpuCatalogModel(ScenarioDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    bool isCustom(int row) const;
    bool isCalibrated(int row) const;

private:
    ScenarioDocument* m_document;
};

} // namespace orrery::gui
