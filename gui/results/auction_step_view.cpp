#include "results/auction_step_view.h"

#include "results/auction_steps_html.h"
#include "results/palette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace orrery::gui {

AuctionStepView::AuctionStepView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_previous = new QPushButton(tr("Previous auction"));
    m_next = new QPushButton(tr("Next auction"));
    m_title = new QLabel;
    m_title->setWordWrap(true);
    bar->addWidget(m_previous);
    bar->addWidget(m_title, 1);
    bar->addWidget(m_next);
    layout->addLayout(bar);
    m_text = new QTextBrowser;
    m_text->setOpenLinks(false);
    layout->addWidget(m_text, 1);
    connect(m_previous, &QPushButton::clicked, this, [this] { step(-1); });
    connect(m_next, &QPushButton::clicked, this, [this] { step(+1); });
    setRun(nullptr);
}

void AuctionStepView::setRun(const RunEntry* run)
{
    m_result = run ? run->result : nullptr;
    m_rounds = m_result ? sched::themis::auctionRounds(*m_result) : std::vector<sched::themis::AuctionRound>{};
    m_index = -1;
    render();
}

void AuctionStepView::showTime(double timeS)
{
    const int at = sched::themis::auctionAt(m_rounds, timeS);
    // Several auctions may share a time: keep the one Previous/Next chose among them.
    const bool sameTime =
        m_index >= 0 && at >= 0 && m_index <= at &&
        m_rounds[static_cast<std::size_t>(m_index)].timeS == m_rounds[static_cast<std::size_t>(at)].timeS;
    if (!sameTime)
        m_index = at;
    render();
}

const sched::themis::AuctionRound* AuctionStepView::shown() const
{
    return m_index >= 0 ? &m_rounds[static_cast<std::size_t>(m_index)] : nullptr;
}

QString AuctionStepView::text() const
{
    return m_title->text() + QLatin1Char('\n') + m_text->toPlainText();
}

void AuctionStepView::step(int delta)
{
    const int next = std::clamp(m_index + delta, 0, static_cast<int>(m_rounds.size()) - 1);
    if (m_rounds.empty() || next == m_index)
        return;
    m_index = next;
    render();
    emit auctionChosen(m_rounds[static_cast<std::size_t>(m_index)].timeS);
}

void AuctionStepView::render()
{
    m_previous->setEnabled(m_index > 0);
    m_next->setEnabled(!m_rounds.empty() && m_index + 1 < static_cast<int>(m_rounds.size()));
    if (m_rounds.empty()) {
        m_title->setText(tr("<b>Auction</b>: not a Themis run"));
        m_text->setHtml(tr("<p>Themis runs record their auctions; this run has none.</p>"));
        return;
    }
    if (m_index < 0) {
        m_title->setText(tr("<b>Auction</b>: none yet (the first of %1 is at %2)")
                             .arg(m_rounds.size())
                             .arg(formatDuration(m_rounds.front().timeS)));
        m_text->setHtml(tr("<p>Move the time on, or press Next auction.</p>"));
        return;
    }
    const auto& r = m_rounds[static_cast<std::size_t>(m_index)];
    m_title->setText(
        tr("<b>Auction %1 of %2</b> at t = %3").arg(r.round).arg(m_rounds.size()).arg(formatDuration(r.timeS)));
    m_text->setHtml(auctionStepsHtml(*m_result, r));
}

} // namespace orrery::gui
