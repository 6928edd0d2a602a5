#pragma once

#include "charts/chart_series.h"
#include "results/run_entry.h"

#include <QWidget>

class QCheckBox;
class QChart;
class QChartView;
class QComboBox;
class QLabel;

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
    /** One line per compared run without values of the metric, saying why ("fifo: no apps ..."); empty if none. */
    QString missingText() const;

private:
    void rebuild();

    QVector<RunEntry> m_runs; // shallow copies: shared results
    QComboBox* m_metric;
    QCheckBox* m_log;
    QLabel* m_missing;
    QChartView* m_view;
};

} // namespace orrery::gui
