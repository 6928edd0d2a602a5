#pragma once

#include "serve/serving_spec.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace orrery::gui {

/**
 * The Serving panel's inputs (docs/gui.md, "The Serving tab"): the models (a set S1-S4 of AlpaServe's Table 1, or a
 * custom list of serving-library models with instance counts), the traffic (Gamma arrivals: total rate, CV, power
 * law, duration; or a MAF1/MAF2 trace file with its window and rate and CV scales; a seed either way), the SLO scale,
 * the devices (number and GPU type, memory budget) and the placement method. spec() is what runs.
 */
class ServingInputs : public QWidget
{
    Q_OBJECT
public:
    explicit ServingInputs(QWidget* parent = nullptr);

    serve::ServingSpec spec() const;
    /** Shows a spec (a stored run's); fields a spec has and the form does not (a library file, Clockwork++'s window)
     *  are kept and given back by spec(). A trace is named again (traceChosen), so that the panel reads it. */
    void setSpec(const serve::ServingSpec& spec);
    /** A custom model list (switches the set to "Custom"). */
    void setCustomModels(const serve::ModelCounts& models);
    /** Traffic from a trace file (true) or Gamma arrivals (false). */
    bool usesTrace() const;
    void setUsesTrace(bool trace);
    /** Why the form cannot run as it stands (a trace chosen and no file named); empty when it can. */
    QString problem() const;
    /** What the panel found reading the chosen trace: its size, or the reader's error (file:line: field: ...). */
    void setTraceInfo(const QString& text, bool error);

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
    QComboBox* trafficSource() const { return m_source; }
    QLineEdit* tracePath() const { return m_trace; }
    QPushButton* browseTrace() const { return m_browse; }
    QSpinBox* traceWindow() const { return m_window; }
    QDoubleSpinBox* rateScale() const { return m_rateScale; }
    QDoubleSpinBox* cvScale() const { return m_cvScale; }
    QLabel* traceInfo() const { return m_traceInfo; }

signals:
    void changed();
    /** The traffic switched between Gamma arrivals and a trace. */
    void trafficSourceChanged(bool trace);
    /** A trace file was named (browsed to, or typed and confirmed): the panel reads it on a worker. */
    void traceChosen(const QString& path);

private:
    void addModelRow(const QString& model, int count);
    void updateCustomEnabled();
    void updateTrafficShown();

    QComboBox* m_set;
    QTableWidget* m_custom;
    QPushButton* m_add;
    QPushButton* m_remove;
    QComboBox* m_source;
    QWidget* m_gamma;
    QWidget* m_traceBox;
    QLineEdit* m_trace;
    QPushButton* m_browse;
    QSpinBox* m_window;
    QDoubleSpinBox* m_rateScale;
    QDoubleSpinBox* m_cvScale;
    QLabel* m_traceInfo;
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
