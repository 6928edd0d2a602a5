#pragma once

#include "provision/provision_types.h"

#include <QElapsedTimer>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTableView;

namespace orrery::gui {

class JobRunner;
class ProvisionPoolModel;
class ProvisionScatter;
class ScenarioDocument;
class StageDiagram;

/**
 * Espresso provisioning (core/provision): model, SLO and per-type quotas and
 * prices in; the chosen plan as a stage diagram and every plan the search
 * evaluated as a cost-vs-time scatter out. Each change re-plans through
 * JobRunner under one key, so while the SLO slider is dragged only the latest
 * search's answer is shown (earlier ones are cancelled or dropped).
 */
class ProvisioningPanel : public QWidget
{
    Q_OBJECT
public:
    ProvisioningPanel(ScenarioDocument* document, JobRunner* runner, QWidget* parent = nullptr);

    ProvisionPoolModel* poolModel() const { return m_pool; }
    StageDiagram* stageDiagram() const { return m_stages; }
    ProvisionScatter* scatter() const { return m_scatter; }
    QSlider* sloSlider() const { return m_slo; }
    const provision::ProvisionResult& lastResult() const { return m_result; }
    bool hasResult() const { return m_hasResult; }
    QString summaryText() const;

    void setModelName(const QString& name);
    void setGlobalBatch(int batch);
    /** Moves the slider to the position nearest `hours`. */
    void setSloHours(double hours);
    double sloHours() const;
    /** Quotas from the scenario's cluster (every GPU it has), at catalog prices. */
    void useScenarioCluster();
    /** The Espresso paper's pool: 8 A6000, 16 A30, 16 RTX 3090, 16 A4000. */
    void usePaperPool();

public slots:
    void replan();

signals:
    void planned();
    void planFailed(const QString& error);

private:
    QWidget* buildInputs();
    /** Re-reads the GPU types (document reset, catalog edits), keeping the quotas of types that remain. */
    void refreshTypes();
    provision::ProvisionJob currentJob() const;
    void showResult(const provision::ProvisionResult& result, const std::vector<provision::PoolGpu>& pool, double sloS);

    ScenarioDocument* m_document;
    JobRunner* m_runner;
    ProvisionPoolModel* m_pool;
    QComboBox* m_model;
    QSpinBox* m_seq;
    QSpinBox* m_batch;
    QSpinBox* m_microBatches;
    QSpinBox* m_iterations;
    QComboBox* m_strategy;
    QComboBox* m_recompute;
    QDoubleSpinBox* m_bandwidth;
    QSlider* m_slo;
    QLabel* m_sloLabel;
    QTableView* m_poolView;
    QLabel* m_summary;
    StageDiagram* m_stages;
    ProvisionScatter* m_scatter;
    provision::ProvisionResult m_result;
    bool m_hasResult = false;
    bool m_holdReplan = false;
};

} // namespace orrery::gui
