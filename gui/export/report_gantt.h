#pragma once

#include "export/report_layout.h"

namespace orrery::gui {

/**
 * Lays the Gantt of `run` out in `area` of `page`: one row per GPU, grouped by type and node as on screen, one
 * colour per job, a time axis with round ticks, the type of each band named at its left when the band is tall
 * enough and every band listed below. The bars are drawn once into an image at the page's resolution, so a run
 * of millions of intervals makes a report of bounded size.
 */
void layoutGantt(ReportPage& page, const QRectF& area, const RunEntry& run, const QPaintDevice& device,
                 const ReportStyle& style);

} // namespace orrery::gui
