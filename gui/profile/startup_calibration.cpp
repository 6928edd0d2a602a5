#include "profile/startup_calibration.h"

#include "hardware/gpu_catalog.h"
#include "profile/calibration.h"

#include <QtGlobal>

namespace orrery::gui {

QStringList calibrationFilesFromEnvironment()
{
    return qEnvironmentVariable("ORRERY_CALIBRATION").split(QLatin1Char(':'), Qt::SkipEmptyParts);
}

QString applyCalibrationFiles(const QStringList& files)
{
    for (const QString& file : files) {
        try {
            hardware::GpuCatalog::calibrateBuiltin(profile::loadCalibration(file.toStdString()).type);
        } catch (const std::exception& e) {
            return QString::fromStdString(e.what());
        }
    }
    return {};
}

} // namespace orrery::gui
