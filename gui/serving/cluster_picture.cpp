#include "serving/cluster_picture.h"

#include "results/palette.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QPainter>
#include <QPalette>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <map>

namespace orrery::gui {

namespace {

constexpr int kGpusPerRow = 16; ///< two nodes of 8 per row
constexpr double kMargin = 8;
constexpr double kRowGap = 10;

/** `bert-1.3b#3` -> `bert-1.3b`: replicas of one kind share a colour. */
QString kindOf(const std::string& instance)
{
    const auto hash = instance.rfind('#');
    return QString::fromStdString(hash == std::string::npos ? instance : instance.substr(0, hash));
}

} // namespace

ClusterPicture::ClusterPicture(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(320, 200);
    setAutoFillBackground(true);
}

void ClusterPicture::setGroups(const std::vector<serve::RunGroup>& groups, int totalGpus)
{
    m_groups = groups;
    m_totalGpus = totalGpus;
    layoutBoxes();
    update();
}

void ClusterPicture::clear()
{
    setGroups({}, 0);
}

QRectF ClusterPicture::groupRect(int g) const
{
    return g >= 0 && g < static_cast<int>(m_rects.size()) ? m_rects[static_cast<std::size_t>(g)] : QRectF();
}

QString ClusterPicture::groupText(int g) const
{
    if (g < 0 || g >= groupCount())
        return {};
    const auto& group = m_groups[static_cast<std::size_t>(g)];
    QStringList models;
    for (const auto& m : group.models)
        models << QString::fromStdString(m);
    return tr("(%1, %2), %3% busy")
               .arg(group.config.stages)
               .arg(group.config.intra)
               .arg(100 * group.utilisation, 0, 'f', 1) +
           QLatin1Char('\n') + (models.isEmpty() ? tr("(no models)") : models.join(QStringLiteral(", ")));
}

bool ClusterPicture::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const QPoint at = static_cast<QHelpEvent*>(event)->pos();
        for (int g = 0; g < groupCount(); ++g)
            if (m_rects[static_cast<std::size_t>(g)].contains(at)) {
                QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), groupText(g), this);
                return true;
            }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

void ClusterPicture::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    layoutBoxes();
}

void ClusterPicture::layoutBoxes()
{
    m_rects.clear();
    m_cells.clear();
    m_idle.clear();
    const int total = std::max(m_totalGpus, 1);
    const int perRow = std::min(kGpusPerRow, total);
    const int rows = (total + perRow - 1) / perRow;
    const double cellW = (width() - 2 * kMargin) / perRow;
    const double rowH = std::max(24.0, (height() - 2 * kMargin - (rows - 1) * kRowGap) / rows);
    const auto cellAt = [&](int gpu) {
        return QRectF(kMargin + (gpu % perRow) * cellW, kMargin + (gpu / perRow) * (rowH + kRowGap), cellW, rowH);
    };
    int gpu = 0;
    for (const auto& g : m_groups) {
        const int n = g.config.gpus();
        QRectF box;
        for (int i = 0; i < n; ++i) {
            const QRectF cell = cellAt(gpu + i);
            m_cells.push_back(cell);
            // A group that wraps past a row's end is drawn as its first row's part; its cells show the rest.
            if (i == 0 || cell.top() == box.top())
                box = box.isNull() ? cell : box.united(cell);
        }
        m_rects.push_back(box);
        gpu += n;
    }
    for (; gpu < m_totalGpus; ++gpu)
        m_idle.push_back(cellAt(gpu));
}

void ClusterPicture::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    if (m_groups.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Place the models (Place) to see the device groups and the replicas on each."));
        return;
    }
    // Colours by model kind, in order of first appearance.
    std::map<QString, QColor> colours;
    for (const auto& g : m_groups)
        for (const auto& m : g.models)
            colours.emplace(kindOf(m), colourForIndex(static_cast<int>(colours.size())));
    p.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DotLine));
    for (const auto& cell : m_idle)
        p.drawRect(cell.adjusted(2, 2, -2, -2));
    std::size_t cell = 0;
    const QFontMetrics fm(font());
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        const auto& group = m_groups[g];
        const QColor fill =
            group.models.empty() ? pal.color(QPalette::Window) : colours[kindOf(group.models.front())].lighter(165);
        // GPU cells, stage boundaries darker: a stage is `intra` GPUs wide.
        for (int i = 0; i < group.config.gpus() && cell < m_cells.size(); ++i, ++cell) {
            p.setPen(QPen(pal.color(QPalette::Mid), 1));
            p.setBrush(fill);
            p.drawRect(m_cells[cell].adjusted(1, 1, -1, -1));
        }
        const QRectF box = m_rects[g];
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(pal.color(QPalette::WindowText), 2));
        p.drawRoundedRect(box.adjusted(1, 1, -1, -1), 4, 4);
        // The configuration, the replicas (by name when there are two or fewer, else counted per kind: a group of
        // S1 holds up to 32; the tooltip names them all) and the utilisation.
        QStringList lines{QStringLiteral("(%1, %2)").arg(group.config.stages).arg(group.config.intra)};
        if (group.models.size() <= 2) {
            for (const auto& m : group.models)
                lines << QString::fromStdString(m);
        } else {
            std::map<QString, int> kinds;
            for (const auto& m : group.models)
                ++kinds[kindOf(m)];
            for (const auto& [kind, n] : kinds)
                lines << QStringLiteral("%1 x %2").arg(n).arg(kind);
        }
        lines << tr("%1% busy").arg(100 * group.utilisation, 0, 'f', 0);
        const QRectF textBox = box.adjusted(5, 3, -5, -3);
        const int fit = std::max(1, static_cast<int>(textBox.height() / fm.height()));
        if (lines.size() > fit) {
            const int hidden = static_cast<int>(lines.size()) - fit + 1;
            lines = lines.mid(0, fit - 1);
            lines << tr("+%1 more").arg(hidden);
        }
        p.setPen(textColourOn(fill));
        p.setClipRect(textBox);
        for (int l = 0; l < lines.size(); ++l)
            p.drawText(QRectF(textBox.left(), textBox.top() + l * fm.height(), textBox.width(), fm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(lines[l], Qt::ElideRight, int(textBox.width())));
        p.setClipping(false);
    }
}

} // namespace orrery::gui
