#pragma once

#include "estimate/plan.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace orrery::gui {

/** Ranked plans from estimate::rankPlans, best first: rank, type, GPUs, dp/tp/pp/ep/cp, micro-batch, memory,
 *  samples/s, $/h. */
class PlanTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Rank, Gpu, Count, Dp, Tp, Pp, Ep, Cp, MicroBatch, MemoryGiB, SamplesPerS, UsdPerHour, ColumnCount };

    explicit PlanTableModel(QObject* parent = nullptr);
    /** Replaces the plans; `displayNames` maps catalog names to what the user reads (may be empty). */
    void setPlans(std::vector<estimate::Plan> plans, QHash<QString, QString> displayNames = {});
    const std::vector<estimate::Plan>& plans() const { return m_plans; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<estimate::Plan> m_plans;
    QHash<QString, QString> m_display;
};

} // namespace orrery::gui
