#pragma once

#include "estimate/plan.h"
#include "workload/model_spec.h"
#include "workload/training_config.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace orrery::gui {

class MemoryBreakdownChart;
class PlanTableModel;
class ScenarioDocument;

/**
 * Memory planner: a model (library or custom) and a training config (every option of estimator v2: framework
 * profile, recomputation, optimizer, FP8, offload, pure half...) in; the per-GPU memory breakdown of the chosen
 * dp/tp/pp/ep/cp layout against every GPU type's capacity, and the ranked plans of estimate::rankPlans, out.
 * Options that contradict each other or the layout are refused with core's message (estimate::checkLayout), the
 * control at fault marked. Estimates take microseconds to milliseconds, so every input change recomputes at once
 * on the GUI thread.
 */
class MemoryPlannerPanel : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryPlannerPanel(ScenarioDocument* document, QWidget* parent = nullptr);

    PlanTableModel* planModel() const { return m_plans; }
    MemoryBreakdownChart* chart() const { return m_chart; }
    QTableView* planView() const { return m_planView; }
    const estimate::MemoryBreakdown& breakdown() const { return m_breakdown; }
    /** GPU types (display names) the chosen layout does not fit. */
    const QStringList& oomTypes() const { return m_oom; }
    QString warningText() const;
    /** The line above the plan table (how many plans, or why none and what would help). */
    QString planSummaryText() const;

    void setModelName(const QString& name);
    void setGlobalBatch(int batch);
    void setParallelism(int dp, int tp, int pp);
    /** The chart's whole layout, ep and cp included (ep applies to MoE models only). */
    void setLayout(const estimate::Parallelism& par);
    /** The layout the chart estimates (ep is 1 for a dense model, whatever its disabled control holds). */
    estimate::Parallelism currentLayout() const;
    void setPipelinePlans(bool on);
    void setCatalogTypes(bool on);
    /**
     * Charts the plan of table row `row` (what a double-click does): its layout, at the micro-batch the
     * table's estimate assumed, which may differ from the Micro-batch input (a pipeline needs
     * micro-batches: with "B / dp" the table assumes 1). Any later edit of the inputs returns the chart
     * to them.
     */
    void showPlan(int row);
    /** The control at fault when the inputs cannot be estimated (its tooltip says why), else nullptr. */
    QWidget* faultyControl() const { return m_faulty; }
    /** The micro-batch the chart's estimate assumes. */
    int chartMicroBatch() const { return m_chartMicro; }
    workload::ModelSpec currentModel() const;
    workload::TrainingConfig currentConfig() const;

signals:
    void recomputed();

private:
    /** The model box's entry for a model given by its dimensions rather than by name. */
    static QString customModelName() { return QStringLiteral("custom"); }
    QWidget* buildInputs(); // memory_planner_inputs.cpp, with the four boxes below
    QGroupBox* buildModelBox();
    QGroupBox* buildTrainingBox();
    QGroupBox* buildLayoutBox();
    QGroupBox* buildPlanBox();
    void modelChosen();
    void inputChanged();
    void recompute();
    /** The plan table's targets: the cluster's types with their GPU counts and node shapes, or every catalog type. */
    std::vector<estimate::PlanTarget> planTargets() const;
    /** Ranks the plans of the model on the targets into the table, and says why when there are none. */
    void updatePlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                     const std::vector<estimate::PlanTarget>& targets);
    /** Enables the controls that apply to the current model and options (ep for MoE models...). */
    void updateApplicability();
    void markFaulty(QWidget* control, const QString& why);

    ScenarioDocument* m_document;
    QComboBox* m_model;
    QSpinBox* m_hidden;
    QSpinBox* m_layers;
    QSpinBox* m_heads;
    QSpinBox* m_vocab;
    QSpinBox* m_batch;
    QSpinBox* m_micro;
    QSpinBox* m_seq;
    QSpinBox* m_dp;
    QSpinBox* m_tp;
    QSpinBox* m_pp;
    QComboBox* m_zero;
    QComboBox* m_recompute;
    QComboBox* m_precision;
    QComboBox* m_optimizer;
    QCheckBox* m_flash;
    QCheckBox* m_seqParallel;
    QCheckBox* m_autocast;
    QComboBox* m_framework;
    QCheckBox* m_fp8;
    QCheckBox* m_fp32Grads;
    QCheckBox* m_pureHalf;
    QCheckBox* m_offload;
    QSpinBox* m_ep;
    QSpinBox* m_cp;
    QSpinBox* m_virtualStages;
    QCheckBox* m_cpPlans;
    QCheckBox* m_catalogTypes;
    QCheckBox* m_pipelinePlans;
    QComboBox* m_rank;
    QLabel* m_warning;
    QLabel* m_planSummary;
    MemoryBreakdownChart* m_chart;
    PlanTableModel* m_plans;
    QTableView* m_planView;
    workload::ModelSpec m_base;
    estimate::MemoryBreakdown m_breakdown;
    QStringList m_oom;
    int m_planMicro = 0;  ///< the shown plan's micro-batch; 0: the chart follows the inputs
    int m_planRank = 0;   ///< the shown plan's rank in the table (1-based), for the caption
    int m_chartMicro = 0; ///< what the chart's estimate used
    bool m_updating = false;
    QWidget* m_faulty = nullptr;
    QString m_faultyTip; ///< the faulty control's own tooltip, restored when the fault is gone
    QString m_faultyWhy; ///< the message shown as its tooltip meanwhile
};

} // namespace orrery::gui
