#include "provision/stage_diagram.h"

#include "results/palette.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

StageDiagram::StageDiagram(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

std::vector<StageDiagram::Box> StageDiagram::boxesOf(const provision::ProvisionPlan& plan,
                                                     const std::vector<provision::PoolGpu>& pool)
{
    std::vector<Box> out;
    int next = 0;
    for (std::size_t i = 0; i < plan.stages.size(); ++i) {
        const auto& s = plan.stages[i];
        Box b;
        const auto& gpu = pool.at(static_cast<std::size_t>(s.gpu)).gpu;
        b.gpu = QString::fromStdString(gpu.display.empty() ? gpu.name : gpu.display);
        b.gpus = plan.dp;
        b.firstLayer = next;
        b.lastLayer = next + s.layers - 1;
        b.embedding = i == 0;
        b.head = i + 1 == plan.stages.size();
        next += s.layers;
        out.push_back(b);
    }
    return out;
}

void StageDiagram::setPlan(const provision::ProvisionPlan& plan, const std::vector<provision::PoolGpu>& pool)
{
    m_boxes = boxesOf(plan, pool);
    m_message.clear();
    updateGeometry(); // more stages may need more rows
    update();
}

namespace {
constexpr double kMargin = 10;
constexpr double kArrow = 22;
constexpr double kRowGap = 18;
constexpr double kRowHeight = 96;  // of a box when there are several rows
constexpr double kSingleMax = 110; // of a box alone in its row
} // namespace

int StageDiagram::perRow(int n, int width)
{
    if (n <= 0)
        return 1;
    const int fit = static_cast<int>((width - 2 * kMargin + kArrow) / (kMinBoxWidth + kArrow));
    return std::clamp(fit, 1, n);
}

int StageDiagram::heightFor(int n, int width)
{
    const int per = perRow(n, width);
    const int rows = n <= 0 ? 1 : (n + per - 1) / per;
    if (rows == 1)
        return 130;
    return static_cast<int>(std::ceil(2 * kMargin + rows * kRowHeight + (rows - 1) * kRowGap));
}

std::vector<QRectF> StageDiagram::boxRects(int n, int width, int height)
{
    std::vector<QRectF> out;
    if (n <= 0)
        return out;
    const int per = perRow(n, width);
    const int rows = (n + per - 1) / per;
    const double w = (width - 2 * kMargin - kArrow * (per - 1)) / per;
    const double h = rows == 1 ? std::min(height - 2 * kMargin, kSingleMax)
                               : std::max(40.0, (height - 2 * kMargin - (rows - 1) * kRowGap) / rows);
    const double top = rows == 1 ? (height - h) / 2 : kMargin;
    for (int i = 0; i < n; ++i) {
        const int row = i / per, col = i % per;
        out.emplace_back(kMargin + col * (w + kArrow), top + row * (h + kRowGap), w, h);
    }
    return out;
}

void StageDiagram::clear(const QString& message)
{
    m_boxes.clear();
    m_message = message;
    update();
}

void StageDiagram::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (m_boxes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, m_message);
        return;
    }
    const int n = static_cast<int>(m_boxes.size());
    const std::vector<QRectF> rects = boxRects(n, width(), height());
    QFont bold = font();
    bold.setBold(true);
    QStringList typeOrder;
    for (const auto& b : m_boxes)
        if (!typeOrder.contains(b.gpu))
            typeOrder << b.gpu;
    const QColor ink(0x30, 0x30, 0x30);
    const auto arrowHead = [&](QPointF tip, QPointF from) {
        const QPointF d = tip - from;
        const double len = std::max(1e-9, std::hypot(d.x(), d.y()));
        const QPointF u(d.x() / len, d.y() / len), v(-u.y(), u.x());
        QPainterPath head;
        head.moveTo(tip);
        head.lineTo(tip - 6 * u + 4 * v);
        head.lineTo(tip - 6 * u - 4 * v);
        head.closeSubpath();
        p.fillPath(head, ink);
    };
    for (int i = 0; i < n; ++i) {
        const auto& b = m_boxes[static_cast<std::size_t>(i)];
        const QRectF r = rects[static_cast<std::size_t>(i)];
        const QColor fill = colourForIndex(static_cast<int>(typeOrder.indexOf(b.gpu))).lighter(150);
        p.setPen(QPen(fill.darker(170), 1.5));
        p.setBrush(fill);
        p.drawRoundedRect(r, 6, 6);
        const QRectF inner = r.adjusted(4, 3, -4, -3);
        QStringList extra;
        if (b.embedding)
            extra << tr("embedding");
        if (b.head)
            extra << tr("head");
        // One line each, elided to the box: nothing is drawn outside it, however narrow it gets.
        const QString lines[] = {tr("stage %1").arg(i), QStringLiteral("%1 \u00d7 %2").arg(b.gpu).arg(b.gpus),
                                 (b.firstLayer == b.lastLayer
                                      ? tr("layer %1").arg(b.firstLayer)
                                      : tr("layers %1\u2013%2").arg(b.firstLayer).arg(b.lastLayer)) +
                                     QStringLiteral(" (%1)").arg(b.lastLayer - b.firstLayer + 1),
                                 extra.isEmpty() ? QString() : QStringLiteral("+ ") + extra.join(QStringLiteral(", "))};
        const double lineH = QFontMetricsF(bold).height();
        const int count = extra.isEmpty() ? 3 : 4;
        double y = inner.top() + std::max(0.0, (inner.height() - count * lineH) / 2);
        for (int k = 0; k < count && y + lineH <= inner.bottom() + 0.5; ++k, y += lineH) {
            p.setFont(k == 0 ? bold : font());
            p.setPen(k == 3 ? QColor(0x40, 0x40, 0x40) : QColor(Qt::black));
            const QString text =
                QFontMetrics(p.font()).elidedText(lines[k], Qt::ElideRight, static_cast<int>(inner.width()));
            p.drawText(QRectF(inner.left(), y, inner.width(), lineH), Qt::AlignHCenter | Qt::AlignVCenter, text);
        }
        if (i + 1 >= n)
            continue;
        const QRectF next = rects[static_cast<std::size_t>(i) + 1];
        p.setPen(QPen(ink, 1.5));
        if (next.top() == r.top()) { // same row: straight right
            const double yMid = r.center().y();
            const QPointF a(r.right() + 3, yMid), tip(next.left() - 3, yMid);
            p.drawLine(a, tip);
            arrowHead(tip, a);
        } else { // on to the next row: down, back left, down
            const double yGap = r.bottom() + (next.top() - r.bottom()) / 2;
            const QPointF a(r.center().x(), r.bottom() + 2), b1(r.center().x(), yGap), b2(next.center().x(), yGap),
                tip(next.center().x(), next.top() - 2);
            p.drawPolyline(QPolygonF(QList<QPointF>{a, b1, b2, tip}));
            arrowHead(tip, b2);
        }
    }
}

} // namespace orrery::gui
