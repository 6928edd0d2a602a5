#pragma once

#include "hardware/gpu_type.h"
#include "provision/provision_types.h"

#include <QAbstractTableModel>

#include <vector>

namespace orrery::gui {

/** The GPU types one may rent: use (check), type, quota (GPUs) and price per GPU-hour, all editable. */
class ProvisionPoolModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Gpu, Quota, Price, ColumnCount };

    explicit ProvisionPoolModel(QObject* parent = nullptr);
    /** Every type of `types`, unused, at its catalog price. */
    void setTypes(const std::vector<hardware::GpuType>& types);
    /** Uses `name` with this quota (and price, when >= 0); false when the type is unknown. */
    bool setQuota(const QString& name, int quota, double price = -1);
    void clearUse();
    /** The checked rows with a quota > 0, in table order. */
    std::vector<provision::PoolGpu> pool() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void poolChanged();

private:
    struct Row
    {
        hardware::GpuType gpu;
        bool used = false;
        int quota = 0;
        double price = 0;
    };
    std::vector<Row> m_rows;
};

} // namespace orrery::gui
