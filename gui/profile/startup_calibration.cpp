#include "profile/startup_calibration.h"

#include "profile/calibration.h"

namespace orrery::gui {

QStringList calibrationFilesFromEnvironment()
{
    QStringList files;
    for (const std::string& f : profile::calibrationFilesFromEnvironment())
        files << QString::fromStdString(f);
    return files;
}

QString applyCalibrationFiles(const QStringList& files)
{
    std::vector<std::string> paths;
    for (const QString& file : files)
        paths.push_back(file.toStdString());
    try {
        profile::applyCalibrations(paths);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace orrery::gui
