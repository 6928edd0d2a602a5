#pragma once

#include "results/run_entry.h"

#include <QColor>
#include <QDateTime>
#include <QFont>
#include <QImage>
#include <QPolygonF>
#include <QRectF>
#include <QStringList>
#include <QVector>

#include <variant>
#include <vector>

class QPaintDevice;

namespace orrery::gui {

/** What a comparison report is made of: data, never widgets, so it lays out at page size and leaves the views
 * on screen as they are. */
struct ReportData
{
    QString title;
    QDateTime generated;
    QStringList scenarioLines;
    QVector<RunEntry> runs; ///< compared runs: metrics table, JCT CDF, cost trade-off
    RunEntry focus;         ///< the run whose utilisation and Gantt are shown (no result: those pages are left out)
    double clusterUsdPerHour = 0; ///< provisioned price of the scenario's cluster, for the cost definitions
};

/** One line (or a word-wrapped block) of text in its box. The layout sizes every box to hold its text. */
struct ReportText
{
    QRectF rect;
    QString text;
    QFont font;
    QColor colour = Qt::black;
    Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter;
    bool wrap = false;
};

struct ReportLine
{
    QPolygonF points;
    QColor colour = Qt::black;
    double width = 1;
    bool dashed = false;
};

struct ReportBox
{
    QRectF rect;
    QColor fill;
    QColor border = Qt::transparent;
    bool ellipse = false;
};

struct ReportImage
{
    QRectF rect;
    QImage image;
};

using ReportItem = std::variant<ReportText, ReportLine, ReportBox, ReportImage>;

/** A page as a display list in paint order, in device pixels of the page's printable area. */
struct ReportPage
{
    QString name; ///< "summary", "comparison", "run": what the page shows, for tests and messages
    std::vector<ReportItem> items;
};

/** The fonts and sizes the report uses on a device of the given resolution. */
struct ReportStyle
{
    QFont title;
    QFont heading;
    QFont body;
    QFont bodyBold;
    QFont small;
    static ReportStyle standard();
};

/**
 * Lays the report out on pages of `pageSize` (device pixels; text measured on `device`): page 1 the summary
 * (title, scenario, the metrics of every compared run with runs as columns, split into blocks that fit the width,
 * and what the figures mean), page 2 the JCT CDF and the cost trade-off of the compared runs, page 3 the focus
 * run's utilisation and Gantt. Every text box holds its text; each page ends with "Page i of n".
 */
std::vector<ReportPage> layoutReport(const ReportData& data, const QPaintDevice& device, QSizeF pageSize,
                                     const ReportStyle& style = ReportStyle::standard());

} // namespace orrery::gui
