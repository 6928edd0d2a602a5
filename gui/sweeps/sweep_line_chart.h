#pragma once

#include "sweeps/sweep_lines.h"

#include <QWidget>

class QChartView;

namespace orrery::gui {

/** SweepLines as a chart: one line per policy with its points marked; round ticks on numeric axes. */
class SweepLineChart : public QWidget
{
    Q_OBJECT
public:
    explicit SweepLineChart(QWidget* parent = nullptr);
    void setLines(const SweepLines& lines, SweepMetric metric, const QString& axisName);
    QChartView* chartView() const { return m_view; }

private:
    QChartView* m_view;
};

} // namespace orrery::gui
