#include "sweeps/workload_edits_section.h"

#include <QFormLayout>
#include <QLineEdit>

namespace orrery::gui {

WorkloadEditsSection::WorkloadEditsSection(QWidget* parent)
    : QGroupBox(tr("Workload edits (empty: not varied)"), parent)
{
    auto* wl = new QFormLayout(this);
    m_arrival = new QLineEdit;
    m_arrival->setPlaceholderText(tr("factors, e.g. 0.5, 1, 2 (2: arrivals twice as fast)"));
    wl->addRow(tr("Arrival-rate scale"), m_arrival);
    m_jobLimit = new QLineEdit;
    m_jobLimit->setPlaceholderText(tr("the N earliest jobs, e.g. 50, 100"));
    wl->addRow(tr("Job limit"), m_jobLimit);
    m_estimateError = new QLineEdit;
    m_estimateError->setPlaceholderText(tr("none, uniform:0.2, lognormal:0.5"));
    wl->addRow(tr("Estimate error"), m_estimateError);
    for (auto* e : {m_arrival, m_jobLimit, m_estimateError})
        connect(e, &QLineEdit::textChanged, this, &WorkloadEditsSection::changed);
}

void WorkloadEditsSection::writeTo(SweepDraft& draft) const
{
    draft.arrivalRateScales = m_arrival->text().toStdString();
    draft.jobLimits = m_jobLimit->text().toStdString();
    draft.estimateErrors = m_estimateError->text().toStdString();
}

} // namespace orrery::gui
