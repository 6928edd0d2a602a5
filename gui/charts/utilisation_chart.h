#pragma once

#include "charts/zoomable_chart_view.h"
#include "results/run_entry.h"

#include <QWidget>

namespace orrery::gui {

/**
 * Busy GPUs (%) over time for one run, all GPUs and each GPU type; below it the cluster's throughput over time
 * (training samples per second where the run's rates say, as goodput runs do; else the jobs' progress in jobs per
 * hour). Zoom and pan on time, one time cursor on both.
 */
class UtilisationChart : public QWidget
{
    Q_OBJECT
public:
    explicit UtilisationChart(QWidget* parent = nullptr);
    void setRun(const RunEntry* run);
    ZoomableChartView* chartView() const { return m_view; }
    /** The throughput chart (hidden without a run or rate records). */
    ZoomableChartView* throughputView() const { return m_throughput; }
    int seriesCount() const;
    /** The shared time cursor, in seconds of the run. */
    void setCursorTime(double timeS);

signals:
    /** A click on the chart at this time (seconds): the time cursor moves there. */
    void timeClicked(double timeS);

private:
    void setThroughput(const RunEntry* run);

    ZoomableChartView* m_view;
    ZoomableChartView* m_throughput;
};

} // namespace orrery::gui
