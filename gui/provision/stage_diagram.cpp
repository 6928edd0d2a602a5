#include "provision/stage_diagram.h"

#include "results/palette.h"

#include <QPainter>
#include <QPainterPath>

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
    update();
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
    const double margin = 10;
    const double arrow = n > 1 ? 22 : 0;
    const double w = (width() - 2 * margin - arrow * (n - 1)) / n;
    const double h = std::min(height() - 2 * margin, 110.0);
    const double top = (height() - h) / 2;
    QFont bold = font();
    bold.setBold(true);
    QStringList typeOrder;
    for (const auto& b : m_boxes)
        if (!typeOrder.contains(b.gpu))
            typeOrder << b.gpu;
    for (int i = 0; i < n; ++i) {
        const auto& b = m_boxes[static_cast<std::size_t>(i)];
        const QRectF r(margin + i * (w + arrow), top, w, h);
        const QColor fill = colourForIndex(static_cast<int>(typeOrder.indexOf(b.gpu))).lighter(150);
        p.setPen(QPen(fill.darker(170), 1.5));
        p.setBrush(fill);
        p.drawRoundedRect(r, 6, 6);
        p.setPen(Qt::black);
        const QRectF inner = r.adjusted(4, 4, -4, -4);
        const QString title = QStringLiteral("%1 \u00d7 %2").arg(b.gpu).arg(b.gpus);
        const QString layers = b.firstLayer == b.lastLayer ? tr("layer %1").arg(b.firstLayer)
                                                           : tr("layers %1\u2013%2").arg(b.firstLayer).arg(b.lastLayer);
        QStringList extra;
        if (b.embedding)
            extra << tr("embedding");
        if (b.head)
            extra << tr("head");
        p.setFont(bold);
        p.drawText(inner, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, tr("stage %1").arg(i));
        p.setFont(font());
        p.drawText(inner, Qt::AlignCenter | Qt::TextWordWrap,
                   title + QLatin1Char('\n') + layers + QStringLiteral(" (%1)").arg(b.lastLayer - b.firstLayer + 1));
        if (!extra.isEmpty()) {
            p.setPen(QColor(0x40, 0x40, 0x40));
            p.drawText(inner, Qt::AlignHCenter | Qt::AlignBottom,
                       QStringLiteral("+ ") + extra.join(QStringLiteral(", ")));
        }
        if (i + 1 < n) {
            const double y = top + h / 2;
            const double x0 = r.right() + 3;
            const double x1 = r.right() + arrow - 3;
            p.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.5));
            p.drawLine(QPointF(x0, y), QPointF(x1, y));
            QPainterPath head;
            head.moveTo(x1, y);
            head.lineTo(x1 - 6, y - 4);
            head.lineTo(x1 - 6, y + 4);
            head.closeSubpath();
            p.fillPath(head, QColor(0x30, 0x30, 0x30));
        }
    }
}

} // namespace orrery::gui
