#pragma once

#include "provision/provision_types.h"

#include <QWidget>

#include <vector>

class QChart;
class QChartView;

namespace orrery::gui {

/**
 * Every complete plan a provisioning search evaluated as a point (training
 * time in hours, cost), those meeting the SLO apart from the others, the
 * Pareto front (cheaper and faster than every other) as a line, the chosen
 * plan marked and the SLO as a vertical line: the Espresso paper's Fig. 2.
 */
class ProvisionScatter : public QWidget
{
    Q_OBJECT
public:
    explicit ProvisionScatter(QWidget* parent = nullptr);
    void setResult(const provision::ProvisionResult& result, double sloS);
    QChartView* chartView() const { return m_view; }
    /** Indices into the last result's evaluated plans on the front, by training time. */
    const std::vector<int>& front() const { return m_front; }

    /** The (time, cost) Pareto front, both minimised; ties keep the first. */
    static std::vector<int> paretoFront(const std::vector<provision::EvaluatedPlan>& plans);

private:
    QChart* m_chart;
    QChartView* m_view;
    std::vector<int> m_front;
};

} // namespace orrery::gui
