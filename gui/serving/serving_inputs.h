#pragma once

#include "serve/serving_spec.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace orrery::gui {

/**
 * The Serving panel's inputs (docs/gui.md, "The Serving tab"): the models (a set S1-S4 of AlpaServe's Table 1, or a
 * custom list of serving-library models with instance counts), the traffic (total rate, CV, duration, seed), the SLO
 * scale, the devices (number and GPU type, memory budget) and the placement method. spec() is what runs.
 */
class ServingInputs : public QWidget
{
    Q_OBJECT
public:
    explicit ServingInputs(QWidget* parent = nullptr);

    serve::ServingSpec spec() const;
    /** Shows a spec (a stored run's); fields a spec has and the form does not (a trace, a library file) are kept and
     *  given back by spec(). */
    void setSpec(const serve::ServingSpec& spec);
    /** A custom model list (switches the set to "Custom"). */
    void setCustomModels(const serve::ModelCounts& models);

    QComboBox* modelSet() const { return m_set; }
    QTableWidget* customModels() const { return m_custom; }
    QDoubleSpinBox* rate() const { return m_rate; }
    QDoubleSpinBox* cv() const { return m_cv; }
    QDoubleSpinBox* sloScale() const { return m_slo; }
    QDoubleSpinBox* duration() const { return m_duration; }
    QSpinBox* gpus() const { return m_gpus; }
    QComboBox* gpuType() const { return m_gpu; }
    QDoubleSpinBox* memoryBudget() const { return m_budget; }
    QComboBox* method() const { return m_method; }

signals:
    void changed();

private:
    void addModelRow(const QString& model, int count);
    void updateCustomEnabled();

    QComboBox* m_set;
    QTableWidget* m_custom;
    QPushButton* m_add;
    QPushButton* m_remove;
    QDoubleSpinBox* m_rate;
    QDoubleSpinBox* m_cv;
    QDoubleSpinBox* m_powerLaw;
    QDoubleSpinBox* m_duration;
    QSpinBox* m_seed;
    QDoubleSpinBox* m_slo;
    QSpinBox* m_gpus;
    QComboBox* m_gpu;
    QDoubleSpinBox* m_budget;
    QComboBox* m_method;
    serve::ServingSpec m_kept; ///< what the form does not show, kept from setSpec()
};

} // namespace orrery::gui
