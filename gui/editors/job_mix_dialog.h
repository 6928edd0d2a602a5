#pragma once

#include "models/job_mix.h"
#include "workload/model_library.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace orrery::gui {

/** A job mix: a model from the library (or custom hyper-parameters), batch, count, arrivals. */
class JobMixDialog : public QDialog
{
    Q_OBJECT
public:
    JobMixDialog(const workload::ModelLibrary& library, QWidget* parent = nullptr);
    JobMix mix() const;
    void setMix(const JobMix& mix);

private:
    void updateInfo();

    const workload::ModelLibrary& m_library;
    QComboBox* m_model;
    QGroupBox* m_custom;
    QLineEdit* m_customName;
    QSpinBox* m_hidden;
    QSpinBox* m_layers;
    QSpinBox* m_heads;
    QSpinBox* m_vocab;
    QSpinBox* m_seq;
    QSpinBox* m_batch;
    QSpinBox* m_count;
    QDoubleSpinBox* m_iterations;
    QComboBox* m_arrival;
    QDoubleSpinBox* m_rate;
    QDoubleSpinBox* m_start;
    QLineEdit* m_user;
    QSpinBox* m_seed;
    QLabel* m_info;
};

} // namespace orrery::gui
