#pragma once

#include "sweeps/sweep_draft.h"

#include <QGroupBox>

class QLineEdit;

namespace orrery::gui {

/** The sweep builder's workload edits: arrival-rate scales, job limits and estimate errors, each an axis when not
 *  empty. */
class WorkloadEditsSection : public QGroupBox
{
    Q_OBJECT
public:
    explicit WorkloadEditsSection(QWidget* parent = nullptr);

    /** Sets the draft's arrival-rate scales, job limits and estimate errors (the text as typed). */
    void writeTo(SweepDraft& draft) const;

    QLineEdit* arrivalEdit() const { return m_arrival; }
    QLineEdit* jobLimitEdit() const { return m_jobLimit; }
    QLineEdit* estimateErrorEdit() const { return m_estimateError; }

signals:
    void changed();

private:
    QLineEdit* m_arrival;
    QLineEdit* m_jobLimit;
    QLineEdit* m_estimateError;
};

} // namespace orrery::gui
