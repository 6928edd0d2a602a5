#pragma once

#include "metrics/wait_reasons.h"
#include "results/cluster_snapshot.h"
#include "results/run_entry.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QListWidget;
class QSlider;
class QTimer;
class QToolButton;

namespace orrery::gui {

class AuctionStepView;

/** Paints the node/GPU grid of a snapshot: one box per node, one cell per GPU coloured by its job. */
class ClusterGridWidget : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterGridWidget(QWidget* parent = nullptr);
    void setData(const RunEntry* run, const ClusterSnapshot* snapshot);
    /** GPUs drawn with a thick outline (the leases of the auction shown beside the grid); empty: none. */
    void setHighlighted(std::vector<int> gpus);
    QSize sizeHint() const override { return {520, 360}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    const RunEntry* m_run = nullptr;
    const ClusterSnapshot* m_snapshot = nullptr;
    std::vector<char> m_highlighted; ///< per GPU
};

/**
 * A run at time t: a slider (and Play) scrubs through time, the grid shows
 * which job holds each GPU and the list beside it the queue, each job with
 * why it waits (the policy's reason and what was free). For a Themis run the
 * auction of the moment (the last at or before t) is told step by step below
 * the queue, and the GPUs it leased are outlined in the grid.
 */
class ClusterAtTimeView : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterAtTimeView(QWidget* parent = nullptr);
    void setRun(const RunEntry* run);
    void setTime(double timeS);
    /** Moves the slider to `timeS` and shows it, without emitting timeChanged (the shared time cursor). */
    void showTime(double timeS);
    double time() const { return m_snapshot.timeS; }
    const ClusterSnapshot& snapshot() const { return m_snapshot; }
    /** The queue list, for tests: one item per waiting job (at most 500), the job index in Qt::UserRole. */
    QListWidget* queueList() const { return m_queue; }
    AuctionStepView* auctionView() const { return m_auction; }

signals:
    /** A job of the queue was clicked (its index in the run). */
    void jobClicked(int job);
    /** The user moved the slider (or Play did): the shared time cursor follows. */
    void timeChanged(double timeS);

private:
    void update();

    RunEntry m_run;
    TimelineIndex m_index;
    std::optional<metrics::WaitReasons> m_reasons;
    ClusterSnapshot m_snapshot;
    double m_endS = 1;
    QSlider* m_slider;
    QToolButton* m_play;
    QTimer* m_timer;
    QLabel* m_time;
    ClusterGridWidget* m_grid;
    QListWidget* m_queue;
    QLabel* m_queueTitle;
    AuctionStepView* m_auction;
};

} // namespace orrery::gui
