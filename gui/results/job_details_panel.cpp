#include "results/job_details_panel.h"

#include "results/job_details.h"

#include <QCompleter>
#include <QLabel>
#include <QLineEdit>
#include <QStringListModel>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace orrery::gui {

JobDetailsPanel::JobDetailsPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_find = new QLineEdit(this);
    m_find->setObjectName(QStringLiteral("FindJob"));
    m_find->setPlaceholderText(tr("Find a job by id (Enter)"));
    m_find->setClearButtonEnabled(true);
    auto* completer = new QCompleter(new QStringListModel(this), this);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_find->setCompleter(completer);
    connect(m_find, &QLineEdit::returnPressed, this, &JobDetailsPanel::find);
    connect(completer, qOverload<const QString&>(&QCompleter::activated), this, [this](const QString& id) {
        m_find->setText(id);
        find();
    });
    layout->addWidget(m_find);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_message->hide();
    layout->addWidget(m_message);
    m_browser = new QTextBrowser(this);
    layout->addWidget(m_browser, 1);
    showJob(-1);
}

void JobDetailsPanel::setRun(const RunEntry* run)
{
    // The job shown stays shown in the next run when it has a job of that id: switching runs compares one job.
    const std::string shownId =
        m_run.result && m_job >= 0 ? m_run.result->jobs[static_cast<std::size_t>(m_job)].id : std::string();
    m_run = run ? *run : RunEntry{};
    QStringList ids;
    if (m_run.result)
        for (const auto& j : m_run.result->jobs)
            ids << QString::fromStdString(j.id);
    static_cast<QStringListModel*>(m_find->completer()->model())->setStringList(ids);
    m_message->hide();
    showJob(shownId.empty() || !m_run.result ? -1 : findJobById(*m_run.result, QString::fromStdString(shownId)));
}

void JobDetailsPanel::showJob(int job)
{
    m_job = m_run.result && job >= 0 && job < static_cast<int>(m_run.result->jobs.size()) ? job : -1;
    const JobDetails details = m_run.result ? jobDetails(*m_run.result, m_job, m_run.cluster.get()) : JobDetails{};
    m_browser->setHtml(m_run.result ? jobDetailsHtml(details) : tr("<p>No run selected.</p>"));
}

void JobDetailsPanel::findJob(const QString& id)
{
    m_find->setText(id);
    find();
}

void JobDetailsPanel::find()
{
    if (!m_run.result)
        return;
    const int job = findJobById(*m_run.result, m_find->text());
    if (job < 0) {
        m_message->setText(tr("No job \"%1\" in %2.").arg(m_find->text().trimmed(), m_run.name));
        m_message->show();
        return;
    }
    m_message->hide();
    showJob(job);
    emit jobFound(job);
}

} // namespace orrery::gui
