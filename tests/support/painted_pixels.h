#pragma once
// How much of a rendered view is drawn: the GUI tests' check that a chart, a diagram or a window shows something.

#include <QImage>
#include <QSize>

class QWidget;

namespace orrery::test {

/** Pixels that differ from the image's most common colour (its background), on a grid of every `step`-th pixel. */
int paintedPixels(const QImage& image, int step = 1);

/** `widget` resized to `size` and rendered onto a white image of that size. */
QImage renderedOnWhite(QWidget* widget, QSize size);

} // namespace orrery::test
