#include "export/pdf_report.h"

#include <QAbstractItemModel>
#include <QDateTime>
#include <QPainter>
#include <QPdfWriter>
#include <QWidget>

namespace orrery::gui {

int writePdfReport(const ReportContent& content, const QString& path, QString* error)
{
    QPdfWriter pdf(path);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setResolution(150);
    pdf.setTitle(content.title);
    pdf.setCreator(QStringLiteral("Orrery"));
    QPainter p;
    if (!p.begin(&pdf)) {
        if (error)
            *error = QStringLiteral("cannot write %1").arg(path);
        return 0;
    }
    const QRect page = p.viewport();
    const int w = page.width();
    int pages = 1;
    int y = 0;
    QFont title = p.font();
    title.setPointSize(16);
    title.setBold(true);
    QFont body = p.font();
    body.setPointSize(9);
    QFont bold = body;
    bold.setBold(true);

    p.setFont(title);
    p.drawText(QRect(0, y, w, 60), Qt::AlignLeft | Qt::AlignTop, content.title);
    y += 60;
    p.setFont(body);
    const int line = QFontMetrics(body, &pdf).height() + 4;
    p.drawText(QRect(0, y, w, line), Qt::AlignLeft,
               QStringLiteral("Generated %1 by Orrery").arg(QDateTime::currentDateTime().toString(Qt::ISODate)));
    y += line * 2;
    p.setFont(bold);
    p.drawText(QRect(0, y, w, line), Qt::AlignLeft, QStringLiteral("Scenario"));
    y += line;
    p.setFont(body);
    for (const QString& s : content.scenarioLines) {
        const QRect r = p.boundingRect(QRect(0, y, w, 1000), Qt::TextWordWrap, s);
        p.drawText(QRect(0, y, w, r.height()), Qt::TextWordWrap, s);
        y += r.height() + 4;
    }
    y += line;
    if (content.metrics && content.metrics->rowCount() > 0) {
        const auto* m = content.metrics;
        p.setFont(bold);
        p.drawText(QRect(0, y, w, line), Qt::AlignLeft, QStringLiteral("Metrics"));
        y += line;
        const int cols = m->columnCount();
        const int colW = w / cols;
        p.setFont(bold);
        for (int c = 0; c < cols; ++c)
            p.drawText(QRect(c * colW, y, colW - 4, line * 2), Qt::AlignLeft | Qt::TextWordWrap,
                       m->headerData(c, Qt::Horizontal).toString());
        y += line * 2;
        p.drawLine(0, y - 2, w, y - 2);
        p.setFont(body);
        for (int r = 0; r < m->rowCount(); ++r) {
            if (r % 2 == 1)
                p.fillRect(QRect(0, y, w, line), QColor(240, 240, 240));
            for (int c = 0; c < cols; ++c)
                p.drawText(QRect(c * colW, y, colW - 4, line), Qt::AlignLeft | Qt::AlignVCenter,
                           m->data(m->index(r, c)).toString());
            y += line;
        }
    }
    // Figures: two per page, each scaled to the page width keeping its aspect ratio.
    const int slotH = (page.height() - 2 * line) / 2;
    int slot = 2; // force a new page for the first figure
    for (const auto& [caption, widget] : content.figures) {
        if (!widget)
            continue;
        if (slot == 2) {
            pdf.newPage();
            ++pages;
            slot = 0;
        }
        const int top = slot * (slotH + line);
        p.setFont(bold);
        p.drawText(QRect(0, top, w, line), Qt::AlignLeft, caption);
        const QSize src = widget->size();
        const double scale =
            std::min(static_cast<double>(w) / src.width(), static_cast<double>(slotH - line) / src.height());
        p.save();
        p.translate(0, top + line);
        p.scale(scale, scale);
        widget->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
        p.restore();
        ++slot;
    }
    p.end();
    return pages;
}

} // namespace orrery::gui
