#pragma once

#include <QString>
#include <QVector>

class QAbstractItemModel;
class QWidget;

namespace orrery::gui {

/** What a comparison report holds: a title, scenario lines, a metrics table and figures (widgets rendered as they
 * look). */
struct ReportContent
{
    QString title;
    QStringList scenarioLines;
    const QAbstractItemModel* metrics = nullptr;
    QVector<QPair<QString, QWidget*>> figures;
};

/** Writes an A4 PDF with QPdfWriter: summary and table on page 1, then two figures per page. Returns pages written, 0
 * on error. */
int writePdfReport(const ReportContent& content, const QString& path, QString* error);

} // namespace orrery::gui
