#pragma once

#include "results/run_entry.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTextBrowser;

namespace orrery::gui {

/**
 * The job details dock: find a job by its id (with completion over the run's ids), and everything the run
 * recorded of the job shown (arrival, first start, wait, end, JCT, every allocation with its GPUs, type and
 * nodes, restarts, events, the policy's notes).
 */
class JobDetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit JobDetailsPanel(QWidget* parent = nullptr);

    /** Shows this run; the job shown stays shown when the run has a job of the same id. */
    void setRun(const RunEntry* run);
    void showJob(int job);
    /** Finds the job with this id in the run shown, as typing it in the find field and pressing Enter does. */
    void findJob(const QString& id);
    int shownJob() const { return m_job; }
    QLineEdit* findField() const { return m_find; }
    QTextBrowser* browser() const { return m_browser; }

signals:
    /** A job was found by id: the views should reveal it. */
    void jobFound(int job);

private:
    void find();

    RunEntry m_run;
    int m_job = -1;
    QLineEdit* m_find;
    QLabel* m_message;
    QTextBrowser* m_browser;
};

} // namespace orrery::gui
