#pragma once

#include "hardware/gpu_type.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace orrery::gui {

/** Add or edit a custom GPU type: name and datasheet figures. */
class GpuTypeDialog : public QDialog
{
    Q_OBJECT
public:
    explicit GpuTypeDialog(const hardware::GpuType& initial, QWidget* parent = nullptr);
    hardware::GpuType gpuType() const;

private:
    void validate();

    QLineEdit* m_name;
    QLineEdit* m_display;
    QLineEdit* m_vendor;
    QDoubleSpinBox* m_memory;
    QDoubleSpinBox* m_fp16;
    QDoubleSpinBox* m_fp32;
    QDoubleSpinBox* m_bandwidth;
    QComboBox* m_linkKind;
    QDoubleSpinBox* m_linkBandwidth;
    QDoubleSpinBox* m_price;
    QLabel* m_problem;
    QPushButton* m_ok = nullptr;
};

} // namespace orrery::gui
