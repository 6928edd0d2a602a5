#pragma once

#include "results/run_entry.h"
#include "sched/themis_records.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace orrery::gui {

/**
 * One auction of a Themis run step by step, for a teacher: the GPUs offered, the apps the filter lets bid with
 * their rho, each app's bids (bundle -> rho), the proportional-fair choice, the hidden payments c_i, what each app
 * was granted and the leftover handed out. It reads the run's records (sched::themis::auctionRounds); Previous and
 * Next step through the run's auctions and ask the cluster view to move its time there.
 */
class AuctionStepView : public QWidget
{
    Q_OBJECT
public:
    explicit AuctionStepView(QWidget* parent = nullptr);
    void setRun(const RunEntry* run);
    /** Shows the last auction at or before timeS (or says none has happened yet). */
    void showTime(double timeS);
    bool hasAuctions() const { return !m_rounds.empty(); }
    const std::vector<sched::themis::AuctionRound>& rounds() const { return m_rounds; }
    /** The auction shown, or nullptr. */
    const sched::themis::AuctionRound* shown() const;
    /** The steps as shown, as plain text (tests). */
    QString text() const;
    QPushButton* previousButton() const { return m_previous; }
    QPushButton* nextButton() const { return m_next; }

signals:
    /** Previous or Next chose the auction at timeS: the cluster view shows that time. */
    void auctionChosen(double timeS);

private:
    void step(int delta);
    void render();

    std::shared_ptr<const sim::RunResult> m_result;
    std::vector<sched::themis::AuctionRound> m_rounds;
    int m_index = -1;
    QLabel* m_title;
    QPushButton* m_previous;
    QPushButton* m_next;
    QTextBrowser* m_text;
};

} // namespace orrery::gui
