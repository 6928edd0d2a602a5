#pragma once

#include <QString>

#include <Qt>

class QAbstractItemModel;

namespace orrery::gui {

/** RFC 4180 quoting of one field. */
QString csvField(const QString& text);
/**
 * The role a model answers for CSV: in headerData, the column's CSV name (ASCII, with its unit: `jct_s`,
 * `utilisation_pct`, `cost_usd`); in data, the cell's value in that unit.
 */
inline constexpr int kCsvRole = Qt::UserRole + 64;

/**
 * The model as CSV: a header row, then one row per model row. Headers and cells use kCsvRole when the model
 * answers it; else cells use Qt::UserRole when set (raw numbers) and headers and cells the displayed text.
 */
QString modelToCsv(const QAbstractItemModel& model);
bool writeCsv(const QAbstractItemModel& model, const QString& path, QString* error);

} // namespace orrery::gui
