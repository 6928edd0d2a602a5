#include "painted_pixels.h"

#include <QHash>
#include <QWidget>

namespace orrery::test {

int paintedPixels(const QImage& image, int step)
{
    QHash<QRgb, int> counts;
    int sampled = 0;
    for (int y = 0; y < image.height(); y += step)
        for (int x = 0; x < image.width(); x += step, ++sampled)
            ++counts[image.pixel(x, y)];
    int background = 0;
    for (int n : counts)
        background = std::max(background, n);
    return sampled - background;
}

QImage renderedOnWhite(QWidget* widget, QSize size)
{
    widget->resize(size);
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    widget->render(&image);
    return image;
}

} // namespace orrery::test
