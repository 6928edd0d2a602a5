#pragma once

#include "results/cluster_snapshot.h"
#include "results/run_entry.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QSlider;
class QTimer;
class QToolButton;

namespace orrery::gui {

/** Paints the node/GPU grid of a snapshot: one box per node, one cell per GPU coloured by its job. */
class ClusterGridWidget : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterGridWidget(QWidget* parent = nullptr);
    void setData(const RunEntry* run, const ClusterSnapshot* snapshot);
    QSize sizeHint() const override { return {520, 360}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    const RunEntry* m_run = nullptr;
    const ClusterSnapshot* m_snapshot = nullptr;
};

/**
 * A run at time t: a slider (and Play) scrubs through time, the grid shows
 * which job holds each GPU and the list beside it the queue.
 */
class ClusterAtTimeView : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterAtTimeView(QWidget* parent = nullptr);
    void setRun(const RunEntry* run);
    void setTime(double timeS);
    double time() const { return m_snapshot.timeS; }
    const ClusterSnapshot& snapshot() const { return m_snapshot; }

private:
    void update();

    RunEntry m_run;
    TimelineIndex m_index;
    ClusterSnapshot m_snapshot;
    double m_endS = 1;
    QSlider* m_slider;
    QToolButton* m_play;
    QTimer* m_timer;
    QLabel* m_time;
    ClusterGridWidget* m_grid;
    QListWidget* m_queue;
    QLabel* m_queueTitle;
};

} // namespace orrery::gui
