#pragma once

#include "estimate/plan.h"
#include "workload/model_spec.h"
#include "workload/training_config.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace orrery::gui {

class MemoryBreakdownChart;
class PlanTableModel;
class ScenarioDocument;

/**
 * Memory planner: a model (library or custom) and a training config in; the
 * per-GPU memory breakdown of the chosen dp/tp/pp layout against every GPU
 * type's capacity, and the ranked plans of estimate::rankPlans, out.
 * Estimates take microseconds, so every input change recomputes at once on
 * the GUI thread.
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

    void setModelName(const QString& name);
    void setGlobalBatch(int batch);
    void setParallelism(int dp, int tp, int pp);
    workload::ModelSpec currentModel() const;
    workload::TrainingConfig currentConfig() const;

signals:
    void recomputed();

private:
    QWidget* buildInputs();
    void modelChosen();
    void recompute();

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
    bool m_updating = false;
};

} // namespace orrery::gui
