#include "results/auction_steps_html.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("AuctionSteps", text);
}

QString appOfJob(const sim::RunResult& run, int job)
{
    if (job < 0 || job >= static_cast<int>(run.jobs.size()))
        return tr("job %1").arg(job);
    const auto& j = run.jobs[static_cast<std::size_t>(job)];
    return QString::fromStdString(j.app.empty() ? j.id : j.app).toHtmlEscaped();
}

QString gpusText(int n)
{
    return n == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(n);
}

QString row(const QStringList& cells, bool header = false)
{
    const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
    QString out = QStringLiteral("<tr>");
    for (const auto& c : cells)
        out += QStringLiteral("<%1 align=\"left\">%2</%1>").arg(tag, c);
    return out + QStringLiteral("</tr>");
}

QString table(const QString& rows)
{
    return QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" border=\"1\">%1</table>").arg(rows);
}

/** The GPUs the app of leadJob won in the auction itself (0 when it did not bid). */
int wonInAuction(const sched::themis::AuctionRound& r, int leadJob)
{
    for (std::size_t i = 0; i < r.bids.size() && i < r.bidderJobs.size(); ++i)
        if (r.bidderJobs[i] == leadJob)
            return r.bids[i].granted;
    return 0;
}

} // namespace

QString formatRho(double rho)
{
    // The policy records 1e9 for an app that keeps nothing it can use (v(empty) = 1e-9): no finite rho.
    if (!std::isfinite(rho) || rho >= 1e9)
        return QStringLiteral("\u221e");
    return QString::number(rho, 'g', 4);
}

QString auctionStepsHtml(const sim::RunResult& run, const sched::themis::AuctionRound& r)
{
    QString html;
    const int k = static_cast<int>(r.bids.size());

    html += tr("<h4>1. GPUs offered</h4><p>%1 without a live lease (free, or their lease ended now) are auctioned.</p>")
                .arg(gpusText(r.offered));

    html += tr("<h4>2. Who bids</h4>");
    if (r.eligible >= 0)
        html += tr("<p>%1 apps could use more GPUs. Only the 1 &minus; f fraction with the worst finish-time "
                   "fairness &rho; bid (at least one): <b>%2 of %1</b>.</p>")
                    .arg(r.eligible)
                    .arg(k);
    else
        html += tr("<p>The 1 &minus; f fraction of apps with the worst finish-time fairness &rho; bid: <b>%1</b>.</p>")
                    .arg(k);
    {
        QString rows = row({tr("app"), tr("&rho; now (ranked by)"), tr("&rho; on what it keeps")}, true);
        for (const auto& b : r.bids)
            rows += row({QString::fromStdString(b.app).toHtmlEscaped(), b.rhoNow < 0 ? tr("-") : formatRho(b.rhoNow),
                         formatRho(b.rhoOld)});
        html += table(rows);
    }

    html += tr("<h4>3. Bids</h4><p>Each bidder values bundles of the offered GPUs by the &rho; it would have with "
               "them (lower is better; 0 GPUs: keep what it has). A size listed twice is a bundle of that size "
               "elsewhere (another machine or rack). <b>Bold</b>: the bundle the auction picks.</p>");
    for (const auto& b : r.bids) {
        QStringList entries;
        for (std::size_t c = 0; c < b.bids.size(); ++c) {
            const QString entry =
                QStringLiteral("%1 &rarr; %2").arg(gpusText(b.bids[c].first), formatRho(b.bids[c].second));
            entries << (static_cast<int>(c) == b.pfChoice ? QStringLiteral("<b>%1</b>").arg(entry) : entry);
        }
        html += QStringLiteral("<p><b>%1</b>: %2</p>")
                    .arg(QString::fromStdString(b.app).toHtmlEscaped(), entries.join(QStringLiteral("; ")));
    }

    html += tr("<h4>4. Proportional-fair choice</h4><p>One bundle per bidder, no GPU twice, maximising the sum of "
               "log(1/&rho;) over the bidders.</p>");
    {
        QString rows = row({tr("app"), tr("bundle"), tr("&rho; with it")}, true);
        for (const auto& b : r.bids)
            rows += row({QString::fromStdString(b.app).toHtmlEscaped(), gpusText(b.pfGpus),
                         formatRho(b.bids[static_cast<std::size_t>(b.pfChoice)].second)});
        html += table(rows);
    }

    html += tr("<h4>5. Hidden payments</h4><p>Each bidder keeps the fraction c<sub>i</sub> of its bundle: the "
               "others' product of values with it present over the product without it (1: it cost them nothing). It "
               "keeps floor(c<sub>i</sub> &times; bundle) GPUs.</p>");
    {
        QString rows = row({tr("app"), tr("c<sub>i</sub>"), tr("bundle"), tr("granted")}, true);
        for (const auto& b : r.bids)
            rows += row({QString::fromStdString(b.app).toHtmlEscaped(), QString::number(b.payment, 'g', 4),
                         gpusText(b.pfGpus), gpusText(b.granted)});
        html += table(rows);
    }

    html += tr("<h4>6. Leftover</h4>");
    html += tr("<p>%1 of the %2 offered went to nobody in the auction (payments and bundles no one picked).</p>")
                .arg(gpusText(r.leftover))
                .arg(r.offered);
    if (r.grantsKnown) {
        // What each app was leased beyond what it won in the auction is the leftover it was handed.
        QStringList handed;
        int given = 0;
        for (const auto& g : r.grants) {
            const int extra = static_cast<int>(g.gpus.size()) - wonInAuction(r, g.leadJob);
            if (extra > 0) {
                handed << QStringLiteral("%1 +%2").arg(appOfJob(run, g.leadJob)).arg(extra);
                given += extra;
            }
        }
        html += handed.isEmpty()
                    ? tr("<p>None was handed out: no app could use them; they stay free.</p>")
                    : tr("<p>Handed out at random to apps that can use them (outside the auction first): %1. "
                         "%2 stay free.</p>")
                          .arg(handed.join(QStringLiteral(", ")))
                          .arg(std::max(0, r.leftover - given));
    } else if (r.leftoverGiven >= 0) {
        html += tr("<p>%1 of them were handed out at random to apps that can use them.</p>").arg(r.leftoverGiven);
    }

    html += tr("<h4>7. Leases</h4>");
    if (!r.grantsKnown) {
        html += tr("<p>Several auctions at this time: the records do not say which leases each granted.</p>");
    } else if (r.grants.empty()) {
        html += tr("<p>No GPU was leased.</p>");
    } else {
        QString rows = row({tr("app"), tr("GPUs leased"), tr("of them in the auction"), tr("GPU ids")}, true);
        for (const auto& g : r.grants) {
            QStringList ids;
            for (int gpu : g.gpus)
                ids << QString::number(gpu);
            rows += row({appOfJob(run, g.leadJob), QString::number(g.gpus.size()),
                         QString::number(wonInAuction(r, g.leadJob)), ids.join(QStringLiteral(" "))});
        }
        html += table(rows);
    }
    html += tr("<p><i>%1 proportional-fair solves, %2 ms (wall time when it ran).</i></p>")
                .arg(r.solves)
                .arg(QString::number(r.solveMs, 'f', 2));
    return html;
}

} // namespace orrery::gui
