#pragma once

#include "io/scenario.h"
#include "sweeps/sweep_draft.h"

#include <QWidget>

class QLineEdit;

namespace orrery::gui {

/** The sweep builder's seeds: integers and ranges (`0-9`), seeded with the base scenario's seed; empty, no `seed`
 *  axis. */
class SeedAxisSection : public QWidget
{
    Q_OBJECT
public:
    explicit SeedAxisSection(const io::Scenario& base, QWidget* parent = nullptr);

    /** Sets the draft's seeds (the text as typed: sweepSpecDocument reads it). */
    void writeTo(SweepDraft& draft) const;

    QLineEdit* edit() const { return m_seeds; }

signals:
    void changed();

private:
    QLineEdit* m_seeds;
};

} // namespace orrery::gui
