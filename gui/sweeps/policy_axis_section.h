#pragma once

#include "io/scenario.h"
#include "sweeps/sweep_draft.h"

#include <QGroupBox>

class QListWidget;
class QPlainTextEdit;

namespace orrery::gui {

/**
 * The sweep builder's policies: every registered policy (checkable, round-based ones marked), the base scenario's
 * checked, and variants with parameters as `NAME:KEY=VALUE` lines, seeded with the scenario's own. They make the
 * spec's `policy` axis (sweepSpecDocument checks each variant with the registry).
 */
class PolicyAxisSection : public QGroupBox
{
    Q_OBJECT
public:
    explicit PolicyAxisSection(const io::Scenario& base, QWidget* parent = nullptr);

    /** Sets the draft's policies (the checked names, in the registry's order) and variants (the text as typed). */
    void writeTo(SweepDraft& draft) const;

    QListWidget* list() const { return m_policies; }
    QPlainTextEdit* variantsEdit() const { return m_variants; }

signals:
    void changed();

private:
    QListWidget* m_policies;
    QPlainTextEdit* m_variants;
};

} // namespace orrery::gui
