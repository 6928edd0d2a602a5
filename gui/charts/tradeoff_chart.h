#pragma once

#include "charts/chart_series.h"
#include "results/run_entry.h"

#include <QWidget>

class QChartView;
class QComboBox;

namespace orrery::gui {

/** Runs as points (cost vs mean JCT or throughput) with the Pareto front drawn and each point labelled. */
class TradeoffChart : public QWidget
{
    Q_OBJECT
public:
    enum class YAxis { MeanJct, Throughput };
    explicit TradeoffChart(QWidget* parent = nullptr);
    void setRuns(const QVector<const RunEntry*>& runs);
    /** Arbitrary points (plans: $/h vs samples/s). */
    void setPoints(const std::vector<TradeoffPoint>& points, const QString& xTitle, const QString& yTitle,
                   bool minimiseY);
    QChartView* chartView() const { return m_view; }
    /** Shows or hides the "Cost against" choice, which applies to runs only (setRuns), not to setPoints. */
    void setYAxisChoiceVisible(bool visible);
    const std::vector<int>& front() const { return m_front; }

private:
    void rebuildFromRuns();
    void draw(const QString& xTitle, const QString& yTitle, bool minimiseY);

    QVector<RunEntry> m_runs;
    std::vector<TradeoffPoint> m_points;
    std::vector<int> m_front;
    QComboBox* m_y;
    QWidget* m_controls;
    QChartView* m_view;
};

} // namespace orrery::gui
