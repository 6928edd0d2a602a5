#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace orrery::gui {

class CdfChart;
class MetricsTableModel;
class RunLibrary;
class TradeoffChart;

/** The compared runs side by side: the metrics table over the JCT CDF and the cost trade-off. */
class ComparisonView : public QWidget
{
    Q_OBJECT
public:
    ComparisonView(RunLibrary* runs, QWidget* parent = nullptr);
    MetricsTableModel* metrics() const { return m_metrics; }
    CdfChart* cdf() const { return m_cdf; }
    TradeoffChart* tradeoff() const { return m_tradeoff; }
    QTableView* table() const { return m_table; }
    void refresh();

private:
    RunLibrary* m_runs;
    MetricsTableModel* m_metrics;
    QTableView* m_table;
    QLabel* m_hint;
    CdfChart* m_cdf;
    TradeoffChart* m_tradeoff;
};

} // namespace orrery::gui
