#pragma once

#include "charts/chart_series.h"
#include "results/run_entry.h"

#include <QWidget>

class QCheckBox;
class QChart;
class QChartView;
class QComboBox;

namespace orrery::gui {

/** CDFs of JCT, queueing delay or rho for several runs, overlaid; optional log x axis. */
class CdfChart : public QWidget
{
    Q_OBJECT
public:
    explicit CdfChart(QWidget* parent = nullptr);
    void setRuns(const QVector<const RunEntry*>& runs);
    void setMetric(CdfMetric metric);
    void setLogScale(bool on);
    QChartView* chartView() const { return m_view; }
    int seriesCount() const;

private:
    void rebuild();

    QVector<RunEntry> m_runs; // shallow copies: shared results
    QComboBox* m_metric;
    QCheckBox* m_log;
    QChartView* m_view;
};

} // namespace orrery::gui
