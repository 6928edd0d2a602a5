#pragma once

#include "charts/zoomable_chart_view.h"
#include "results/run_entry.h"

#include <QWidget>

namespace orrery::gui {

/** Busy GPUs (%) over time for one run: all GPUs and each GPU type; zoom and pan on time, one time cursor. */
class UtilisationChart : public QWidget
{
    Q_OBJECT
public:
    explicit UtilisationChart(QWidget* parent = nullptr);
    void setRun(const RunEntry* run);
    ZoomableChartView* chartView() const { return m_view; }
    int seriesCount() const;
    /** The shared time cursor, in seconds of the run. */
    void setCursorTime(double timeS);

signals:
    /** A click on the chart at this time (seconds): the time cursor moves there. */
    void timeClicked(double timeS);

private:
    ZoomableChartView* m_view;
};

} // namespace orrery::gui
