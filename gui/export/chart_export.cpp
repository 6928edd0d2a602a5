#include "export/chart_export.h"

#include <QFileInfo>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

namespace orrery::gui {

QImage renderToImage(QWidget* widget, const QSize& size)
{
    if (size.isValid() && widget->size() != size)
        widget->resize(size);
    QImage image(widget->size(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    widget->render(&p);
    return image;
}

bool exportWidget(QWidget* widget, const QString& path, QString* error)
{
    if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(widget->size());
        svg.setViewBox(QRect(QPoint(), widget->size()));
        svg.setTitle(widget->windowTitle());
        QPainter p;
        if (!p.begin(&svg)) {
            if (error)
                *error = QStringLiteral("cannot write %1").arg(path);
            return false;
        }
        widget->render(&p);
        return p.end();
    }
    if (!renderToImage(widget).save(path)) {
        if (error)
            *error = QStringLiteral("cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace orrery::gui
