#pragma once

#include "profile/calibration.h"

#include <QDialog>

#include <functional>

class QLabel;

namespace orrery::gui {

/**
 * A finished profile: the device, the catalog type it matched, the measured rates and the fitted
 * curves, with "Use in this session" (through `apply`, which returns a refusal or an empty string) and
 * "Save..." (a calibration file, as `orrery-cli profile` writes).
 */
class CalibrationDialog : public QDialog
{
    Q_OBJECT
public:
    using Apply = std::function<QString(const profile::Calibration&)>;

    CalibrationDialog(profile::Calibration calibration, Apply apply, QWidget* parent = nullptr);

    /** The summary the dialog shows, as rich text. */
    static QString summaryHtml(const profile::Calibration& c);
    /** Writes the calibration file; the error, or empty. */
    QString saveTo(const QString& path);
    /** Applies it to this session's catalog; the refusal, or empty. */
    QString useInSession();

private:
    void saveInteractive();
    void showStatus(const QString& text, bool error);

    profile::Calibration m_calibration;
    Apply m_apply;
    QLabel* m_status;
};

} // namespace orrery::gui
