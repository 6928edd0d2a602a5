#pragma once

#include "hardware/cluster.h"
#include "sweep/sweep_spec.h"
#include "sweeps/sweep_draft.h"

#include <QGroupBox>
#include <QString>

#include <memory>
#include <vector>

class QVBoxLayout;

namespace orrery::gui {

/**
 * The sweep builder's cluster edits, one row each and one axis each: scale a node group, set its node count, swap
 * its GPU type (a chooser appends the catalog's types to the values), or add nodes of a catalog type with a number
 * of GPUs per node. Targets are the base scenario's node groups (or, for added nodes, the catalog's types).
 */
class ClusterEditsSection : public QGroupBox
{
    Q_OBJECT
public:
    /** `cluster`: the base scenario's. */
    explicit ClusterEditsSection(hardware::Cluster cluster, QWidget* parent = nullptr);
    ~ClusterEditsSection() override;

    /** Adds a row and returns its index. A target that is not the scenario's is kept, for core to say what is wrong
     *  with it (a spec written for another scenario). */
    int addEdit(sweep::AxisKind kind, const QString& target, const QString& values, int gpusPerNode = 8);
    /** Removes row `index` (its ✕ button). */
    void removeEdit(int index);
    int count() const { return static_cast<int>(m_rows.size()); }
    /** Sets row `index`'s kind, as its chooser does: the targets are refilled for it. */
    void setKind(int index, sweep::AxisKind kind);

    /** The rows in order, as the draft's cluster edits. */
    void writeTo(SweepDraft& draft) const;

signals:
    void changed();

private:
    struct Row;
    void refillTargets(Row& row);
    void remove(Row* row);

    hardware::Cluster m_cluster;
    QVBoxLayout* m_rowsLayout;
    std::vector<std::unique_ptr<Row>> m_rows;
};

} // namespace orrery::gui
