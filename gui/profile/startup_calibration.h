#pragma once

#include <QString>
#include <QStringList>

namespace orrery::gui {

/** The files of $ORRERY_CALIBRATION (colon-separated; empty entries skipped). */
QStringList calibrationFilesFromEnvironment();

/**
 * Applies calibration files to the process catalog in order (a later one replaces an earlier one of the
 * same type), as `orrery --calibration` does before any window opens. Returns the first error (it names
 * the file and the JSON path), or empty.
 */
QString applyCalibrationFiles(const QStringList& files);

} // namespace orrery::gui
