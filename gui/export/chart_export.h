#pragma once

#include <QImage>
#include <QString>

class QWidget;

namespace orrery::gui {

/** Renders any view (chart, Gantt, grid) into an image of its current size. */
QImage renderToImage(QWidget* widget, const QSize& size = {});
/** PNG or SVG (by the file suffix) of a widget. */
bool exportWidget(QWidget* widget, const QString& path, QString* error);

} // namespace orrery::gui
