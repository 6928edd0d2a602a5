#include "profile/calibration_dialog.h"

#include "hardware/gpu_curves.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace orrery::gui {

CalibrationDialog::CalibrationDialog(profile::Calibration calibration, Apply apply, QWidget* parent)
    : QDialog(parent), m_calibration(std::move(calibration)), m_apply(std::move(apply))
{
    setObjectName(QStringLiteral("CalibrationDialog"));
    setWindowTitle(tr("GPU profile: %1").arg(QString::fromStdString(m_calibration.measurements.device.name)));
    auto* layout = new QVBoxLayout(this);
    auto* summary = new QLabel(summaryHtml(m_calibration), this);
    summary->setTextFormat(Qt::RichText);
    summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->hide();
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* use = buttons->addButton(tr("Use in this session"), QDialogButtonBox::ActionRole);
    QPushButton* save = buttons->addButton(tr("Save..."), QDialogButtonBox::ActionRole);
    connect(use, &QPushButton::clicked, this, &CalibrationDialog::useInSession);
    connect(save, &QPushButton::clicked, this, &CalibrationDialog::saveInteractive);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QString CalibrationDialog::summaryHtml(const profile::Calibration& c)
{
    const profile::DeviceInfo& d = c.measurements.device;
    const hardware::GpuType& t = c.type;
    const hardware::GpuCurves curves = t.curves ? *t.curves : hardware::defaultCurves(t);
    const hardware::GpuCurves& defaults = hardware::defaultCurves(t);
    const auto s = [](const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); };
    QString html = tr("<p><b>%1</b> (compute capability %2.%3, %4 SMs)<br>")
                       .arg(s(d.name))
                       .arg(d.ccMajor)
                       .arg(d.ccMinor)
                       .arg(d.sms);
    html += c.catalogType.empty() ? tr("Not in the catalog: calibrated as a new type <b>%1</b>.</p>").arg(s(t.name))
                                  : tr("Catalog type: <b>%1</b> (%2).</p>").arg(s(t.name), s(t.display));
    const profile::GemmFit* bf16 = c.fit("bf16");
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    const auto row = [&html](const QString& what, const QString& value, const QString& note) {
        html += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2</td><td>%3</td></tr>").arg(what, value, note);
    };
    if (bf16)
        row(tr("bf16 GEMM"), tr("%1 TFLOP/s").arg(bf16->maxMeasuredTflops, 0, 'f', 1),
            tr("fitted %1 TFLOP/s; datasheet %2").arg(bf16->tflops, 0, 'f', 1).arg(t.fp16TFlops, 0, 'f', 0));
    row(tr("Memory bandwidth"), tr("%1 GB/s").arg(c.bandwidthGBps, 0, 'f', 0),
        tr("%1% of %2 GB/s").arg(100 * curves.memoryEfficiency, 0, 'f', 0).arg(t.memoryBandwidthGBps, 0, 'f', 0));
    row(tr("Kernel floor"), tr("%1 µs").arg(c.kernelFloorUs, 0, 'f', 2),
        tr("default %1 µs").arg(defaults.kernelFloorUs, 0, 'f', 1));
    if (c.peerGBps > 0)
        row(tr("Peer-to-peer"), tr("%1 GB/s").arg(c.peerGBps, 0, 'f', 0), QString());
    html += QStringLiteral("</table><p><b>%1</b></p><table cellspacing=\"0\" cellpadding=\"3\">").arg(tr("GEMM fits"));
    html += tr("<tr><th>precision</th><th>shapes</th><th>best TFLOP/s</th><th>fitted TFLOP/s</th><th>tile</th>"
               "<th>half k</th><th>median error</th></tr>");
    for (const profile::GemmFit& f : c.gemm)
        html += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td>"
                               "<td align=\"right\">%4</td><td align=\"right\">%5</td><td align=\"right\">%6</td>"
                               "<td align=\"right\">%7%</td></tr>")
                    .arg(s(f.precision))
                    .arg(f.samples)
                    .arg(f.maxMeasuredTflops, 0, 'f', 1)
                    .arg(f.tflops, 0, 'f', 1)
                    .arg(f.tile, 0, 'f', 0)
                    .arg(f.halfK, 0, 'f', 0)
                    .arg(100 * f.medianError, 0, 'f', 1);
    html += QStringLiteral("</table><p><b>%1</b></p><table cellspacing=\"0\" cellpadding=\"3\">")
                .arg(tr("Fitted curves (measured / published default)"));
    const auto curve = [&row](const QString& what, double measured, double published, int decimals) {
        row(what, QString::number(measured, 'f', decimals), QString::number(published, 'f', decimals));
    };
    curve(tr("SMs"), curves.sms, defaults.sms, 0);
    curve(tr("bf16 GEMM efficiency in training"), curves.gemmEfficiency, defaults.gemmEfficiency, 3);
    curve(tr("fp32 GEMM efficiency"), curves.fp32GemmEfficiency, defaults.fp32GemmEfficiency, 3);
    curve(tr("Tile edge"), curves.tile, defaults.tile, 0);
    curve(tr("Half-efficiency k"), curves.halfK, defaults.halfK, 0);
    curve(tr("Memory efficiency"), curves.memoryEfficiency, defaults.memoryEfficiency, 3);
    curve(tr("Kernel floor (µs)"), curves.kernelFloorUs, defaults.kernelFloorUs, 2);
    html += QStringLiteral("</table><p>%1</p>").arg(tr("Source: %1").arg(s(curves.source)));
    for (const std::string& skipped : c.measurements.skipped)
        html += QStringLiteral("<p>%1</p>").arg(tr("Skipped: %1").arg(s(skipped)));
    return html;
}

QString CalibrationDialog::saveTo(const QString& path)
{
    try {
        profile::saveCalibration(m_calibration, path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString CalibrationDialog::useInSession()
{
    const QString refusal = m_apply ? m_apply(m_calibration) : tr("Cannot apply a calibration here.");
    showStatus(refusal.isEmpty() ? tr("The catalog now uses the measured curves of %1 in this session.")
                                       .arg(QString::fromStdString(m_calibration.type.name))
                                 : refusal,
               !refusal.isEmpty());
    return refusal;
}

void CalibrationDialog::saveInteractive()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Calibration"),
        QStringLiteral("orrery-calibration-%1.json").arg(QString::fromStdString(m_calibration.type.name)),
        tr("Calibration (*.json)"));
    if (path.isEmpty())
        return;
    const QString error = saveTo(path);
    showStatus(error.isEmpty() ? tr("Wrote %1. Use it with: orrery --calibration %1").arg(path)
                               : tr("Could not save: %1").arg(error),
               !error.isEmpty());
}

void CalibrationDialog::showStatus(const QString& text, bool error)
{
    m_status->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; }") : QString());
    m_status->setText(text);
    m_status->show();
}

} // namespace orrery::gui
