#pragma once

#include "estimate/plan.h"

#include <QString>
#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QLabel;

namespace orrery::gui {

/** A GPU type's usable memory per GPU, drawn as a line across its bar. */
struct CapacityLine
{
    QString label;
    double capacityGiB = 0;
};

/**
 * The per-GPU memory of one layout as a stacked bar (weights, gradients,
 * optimizer states, activations, then the overhead as temporaries, allocator
 * slack and CUDA context), repeated once per GPU type with
 * that type's capacity as a line across it; types it does not fit get a red
 * "OOM" above their bar, "OOM" after their name and their line drawn in red.
 */
class MemoryBreakdownChart : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryBreakdownChart(QWidget* parent = nullptr);
    /** `caption` names the layout and micro-batch the estimate is for (shown in the title). */
    void setData(const estimate::MemoryBreakdown& memory, const std::vector<CapacityLine>& capacities,
                 const QString& caption = {});
    QChartView* chartView() const { return m_view; }
    /** The legend's line of the three totals a user compares with measurements: allocated (live tensors), reserved
     *  (the caching allocator's, with its slack) and device-visible (with the CUDA context, what nvidia-smi shows). */
    static QString totalsHtml(const estimate::MemoryBreakdown& memory);
    QString legendText() const;
    /** Bars marked OOM (labelled above the bar), in the order of the capacities. */
    int oomMarks() const { return m_oomMarks; }

private:
    QChart* m_chart;
    QChartView* m_view;
    QLabel* m_legend; ///< rich text that wraps: Qt Charts' legend cuts names when the chart is narrow
    int m_oomMarks = 0;
};

} // namespace orrery::gui
