#pragma once

#include "serve/serving_run.h"

#include <QWidget>

class QChartView;
class QLineSeries;

namespace orrery::gui {

/** The latency CDF of a serving run's served requests (the stored samples), with each model kind's SLO marked. */
class ServingCdfChart : public QWidget
{
    Q_OBJECT
public:
    explicit ServingCdfChart(QWidget* parent = nullptr);
    void setRun(const serve::ServingRun& run);
    void clear();
    QChartView* chartView() const { return m_view; }
    /** The CDF line (nullptr before a run is shown). */
    QLineSeries* cdfLine() const { return m_cdf; }

private:
    QChartView* m_view;
    QLineSeries* m_cdf = nullptr;
};

} // namespace orrery::gui
