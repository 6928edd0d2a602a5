#pragma once

#include "results/run_entry.h"

#include <QWidget>

class QChartView;

namespace orrery::gui {

/** Busy GPUs (%) over time for one run: all GPUs and each GPU type. */
class UtilisationChart : public QWidget
{
    Q_OBJECT
public:
    explicit UtilisationChart(QWidget* parent = nullptr);
    void setRun(const RunEntry* run);
    QChartView* chartView() const { return m_view; }
    int seriesCount() const;

private:
    QChartView* m_view;
};

} // namespace orrery::gui
