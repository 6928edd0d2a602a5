#pragma once

#include "export/report_layout.h"

#include <QString>

class QPainter;

namespace orrery::gui {

/** Paints one laid-out page (its display list) with `painter`, whose origin is the page's printable area. */
void paintReportPage(QPainter& painter, const ReportPage& page);

/**
 * Writes the report of `data` as an A4 portrait PDF (15 mm margins, 150 dpi): laid out from the data at page size
 * (layoutReport), so nothing on screen is resized or grabbed. Returns the pages written, 0 on error (`error` says
 * why, naming the file).
 */
int writePdfReport(const ReportData& data, const QString& path, QString* error);

} // namespace orrery::gui
