#include "export/pdf_report.h"

#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>

namespace orrery::gui {

void paintReportPage(QPainter& painter, const ReportPage& page)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    for (const ReportItem& item : page.items) {
        if (const auto* t = std::get_if<ReportText>(&item)) {
            painter.setFont(t->font);
            painter.setPen(t->colour);
            painter.drawText(t->rect, static_cast<int>(t->align) | (t->wrap ? Qt::TextWordWrap : 0), t->text);
        } else if (const auto* l = std::get_if<ReportLine>(&item)) {
            QPen pen(l->colour);
            pen.setWidthF(l->width);
            pen.setCapStyle(Qt::FlatCap);
            pen.setJoinStyle(Qt::RoundJoin);
            if (l->dashed)
                pen.setStyle(Qt::DashLine);
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
            painter.drawPolyline(l->points);
        } else if (const auto* b = std::get_if<ReportBox>(&item)) {
            painter.setPen(b->border == Qt::transparent ? QPen(Qt::NoPen) : QPen(b->border));
            painter.setBrush(b->fill);
            if (b->ellipse)
                painter.drawEllipse(b->rect);
            else
                painter.drawRect(b->rect);
        } else if (const auto* i = std::get_if<ReportImage>(&item)) {
            painter.drawImage(i->rect, i->image);
        }
    }
    painter.restore();
}

int writePdfReport(const ReportData& data, const QString& path, QString* error)
{
    QPdfWriter pdf(path);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageOrientation(QPageLayout::Portrait);
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setResolution(150);
    pdf.setTitle(data.title);
    pdf.setCreator(QStringLiteral("Orrery"));
    QPainter painter;
    if (!painter.begin(&pdf)) {
        if (error)
            *error = QStringLiteral("%1: cannot write the PDF (is the folder writable?)")
                         .arg(QFileInfo(path).absoluteFilePath());
        return 0;
    }
    const QRect area = pdf.pageLayout().paintRectPixels(pdf.resolution());
    const std::vector<ReportPage> pages = layoutReport(data, pdf, QSizeF(area.size()));
    for (std::size_t i = 0; i < pages.size(); ++i) {
        if (i > 0)
            pdf.newPage();
        paintReportPage(painter, pages[i]);
    }
    painter.end();
    return static_cast<int>(pages.size());
}

} // namespace orrery::gui
