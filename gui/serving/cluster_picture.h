#pragma once

#include "serve/serving_run.h"

#include <QRectF>
#include <QWidget>

#include <vector>

namespace orrery::gui {

/**
 * A serving placement drawn as its cluster: every device group a box as wide as its GPUs (one cell per GPU, the
 * pipeline stages as columns of `intra` GPUs), titled with its parallel configuration (inter-op, intra-op) and
 * utilisation, and listing the model replicas placed on it, each model kind in its own colour. Groups wrap onto rows
 * of `gpusPerRow` GPUs (a node of 8 by default spans one row's eighth). Clockwork++ runs show one segment at a time.
 */
class ClusterPicture : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterPicture(QWidget* parent = nullptr);

    /** Shows segment `segment` of `run` (its groups) on a cluster of `totalGpus`. */
    void setGroups(const std::vector<serve::RunGroup>& groups, int totalGpus);
    void clear();
    int groupCount() const { return static_cast<int>(m_groups.size()); }
    /** The box of group g in widget coordinates, as last laid out (tests). */
    QRectF groupRect(int g) const;
    /** The text drawn in group g's box: its configuration, then its models. */
    QString groupText(int g) const;
    QSize sizeHint() const override { return {640, 360}; }

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void layoutBoxes();

    std::vector<serve::RunGroup> m_groups;
    int m_totalGpus = 0;
    std::vector<QRectF> m_rects;
    std::vector<QRectF> m_cells; ///< one per GPU in use, in group order
    std::vector<QRectF> m_idle;  ///< GPUs no group uses
};

} // namespace orrery::gui
