#include "editors/gpu_type_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>

namespace orrery::gui {

static QDoubleSpinBox* spin(double max, double value, const QString& suffix, int decimals = 1)
{
    auto* s = new QDoubleSpinBox;
    s->setRange(0, max);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setSuffix(suffix);
    return s;
}

GpuTypeDialog::GpuTypeDialog(const hardware::GpuType& t, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(t.name.empty() ? tr("Add custom GPU type")
                                  : tr("Edit GPU type %1").arg(QString::fromStdString(t.name)));
    auto* form = new QFormLayout(this);
    m_name = new QLineEdit(QString::fromStdString(t.name));
    m_name->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[a-z0-9][a-z0-9._-]*")), m_name));
    m_name->setPlaceholderText(tr("lower-case id, e.g. h100-nvl"));
    m_display = new QLineEdit(QString::fromStdString(t.display));
    m_vendor = new QLineEdit(QString::fromStdString(t.vendor));
    m_memory = spin(1024, t.memoryGiB, tr(" GiB"));
    m_fp16 = spin(100000, t.fp16TFlops, tr(" TFLOP/s"));
    m_fp32 = spin(100000, t.fp32TFlops, tr(" TFLOP/s"));
    m_bandwidth = spin(100000, t.memoryBandwidthGBps, tr(" GB/s"), 0);
    m_linkKind = new QComboBox;
    for (auto k : {hardware::LinkKind::PCIe, hardware::LinkKind::NVLink, hardware::LinkKind::InfinityFabric})
        m_linkKind->addItem(QString::fromStdString(hardware::toString(k)), static_cast<int>(k));
    m_linkKind->setCurrentIndex(m_linkKind->findData(static_cast<int>(t.intraLink.kind)));
    m_linkBandwidth = spin(10000, t.intraLink.bandwidthGBps, tr(" GB/s"));
    m_price = spin(1000, t.priceUsdPerHour, tr(" $/h"), 2);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Display name"), m_display);
    form->addRow(tr("Vendor"), m_vendor);
    form->addRow(tr("Memory"), m_memory);
    form->addRow(tr("FP16/BF16 dense peak"), m_fp16);
    form->addRow(tr("FP32 peak"), m_fp32);
    form->addRow(tr("Memory bandwidth"), m_bandwidth);
    form->addRow(tr("Intra-node link"), m_linkKind);
    form->addRow(tr("Link bandwidth (per GPU)"), m_linkBandwidth);
    form->addRow(tr("Price per GPU"), m_price);
    m_problem = new QLabel;
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    form->addRow(m_problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (auto* e : {m_name, m_display})
        connect(e, &QLineEdit::textChanged, this, &GpuTypeDialog::validate);
    for (auto* s : {m_memory, m_fp16})
        connect(s, &QDoubleSpinBox::valueChanged, this, &GpuTypeDialog::validate);
    validate();
}

void GpuTypeDialog::validate()
{
    QString problem;
    if (m_name->text().isEmpty())
        problem = tr("Give the type a name.");
    else if (m_memory->value() <= 0)
        problem = tr("Memory must be positive.");
    else if (m_fp16->value() <= 0)
        problem = tr("The FP16 peak must be positive (throughput estimates use it).");
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_ok->setEnabled(problem.isEmpty());
}

hardware::GpuType GpuTypeDialog::gpuType() const
{
    hardware::GpuType t;
    t.name = m_name->text().toStdString();
    t.display = m_display->text().isEmpty() ? t.name : m_display->text().toStdString();
    t.vendor = m_vendor->text().toStdString();
    t.memoryGiB = m_memory->value();
    t.fp16TFlops = m_fp16->value();
    t.fp32TFlops = m_fp32->value();
    t.memoryBandwidthGBps = m_bandwidth->value();
    t.intraLink.kind = static_cast<hardware::LinkKind>(m_linkKind->currentData().toInt());
    t.intraLink.bandwidthGBps = m_linkBandwidth->value();
    t.priceUsdPerHour = m_price->value();
    t.source = "custom";
    return t;
}

} // namespace orrery::gui
