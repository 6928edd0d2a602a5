#include "sweeps/seed_axis_section.h"

#include <QFormLayout>
#include <QLineEdit>

namespace orrery::gui {

SeedAxisSection::SeedAxisSection(const io::Scenario& base, QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    m_seeds = new QLineEdit(QString::number(base.options.seed));
    m_seeds->setPlaceholderText(tr("empty: the scenario's seed; e.g. 0, 1, 2 or 0-9"));
    form->addRow(tr("Seeds"), m_seeds);
    connect(m_seeds, &QLineEdit::textChanged, this, &SeedAxisSection::changed);
}

void SeedAxisSection::writeTo(SweepDraft& draft) const
{
    draft.seeds = m_seeds->text().toStdString();
}

} // namespace orrery::gui
