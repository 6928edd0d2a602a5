#pragma once

#include <QString>

class QAbstractItemModel;

namespace orrery::gui {

/** RFC 4180 quoting of one field. */
QString csvField(const QString& text);
/**
 * The model as CSV: a header row, then one row per model row. Cells use
 * Qt::UserRole when set (raw numbers), else the displayed text.
 */
QString modelToCsv(const QAbstractItemModel& model);
bool writeCsv(const QAbstractItemModel& model, const QString& path, QString* error);

} // namespace orrery::gui
