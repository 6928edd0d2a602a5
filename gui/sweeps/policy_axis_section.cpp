#include "sweeps/policy_axis_section.h"

#include "sched/registry.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <algorithm>

namespace orrery::gui {

PolicyAxisSection::PolicyAxisSection(const io::Scenario& base, QWidget* parent) : QGroupBox(tr("Policies"), parent)
{
    auto* pl = new QHBoxLayout(this);
    m_policies = new QListWidget;
    for (const auto& info : sched::registeredPolicies()) {
        auto* item = new QListWidgetItem(QString::fromStdString(info.name) +
                                         (info.traits.roundBased ? tr(" (round-based)") : QString()));
        item->setData(Qt::UserRole, QString::fromStdString(info.name));
        item->setToolTip(QString::fromStdString(info.description));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool listed = std::find(base.policies.begin(), base.policies.end(), info.name) != base.policies.end();
        item->setCheckState(listed ? Qt::Checked : Qt::Unchecked);
        m_policies->addItem(item);
    }
    m_policies->setMinimumHeight(120);
    pl->addWidget(m_policies, 1);
    auto* variantColumn = new QVBoxLayout;
    auto* variantHelp = new QLabel(tr("Variants with parameters, one per line (orrery-cli policies --params):"));
    variantHelp->setWordWrap(true);
    variantColumn->addWidget(variantHelp);
    m_variants = new QPlainTextEdit;
    m_variants->setPlaceholderText(QStringLiteral("tiresias:backfill_limit=0\nthemis:f=0.5"));
    // The scenario's policies with parameters are variants: a list item is a plain name.
    std::string variantText;
    for (const auto& p : base.policies)
        if (p.find(':') != std::string::npos)
            variantText += p + "\n";
    m_variants->setPlainText(QString::fromStdString(variantText));
    variantColumn->addWidget(m_variants, 1);
    auto* note = new QLabel(tr("With none checked and no variant, the sweep runs the scenario's own policies."));
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    variantColumn->addWidget(note);
    pl->addLayout(variantColumn, 1);

    connect(m_policies, &QListWidget::itemChanged, this, &PolicyAxisSection::changed);
    connect(m_variants, &QPlainTextEdit::textChanged, this, &PolicyAxisSection::changed);
}

void PolicyAxisSection::writeTo(SweepDraft& draft) const
{
    draft.policies.clear();
    for (int i = 0; i < m_policies->count(); ++i)
        if (m_policies->item(i)->checkState() == Qt::Checked)
            draft.policies.push_back(m_policies->item(i)->data(Qt::UserRole).toString().toStdString());
    draft.policyVariants = m_variants->toPlainText().toStdString();
}

} // namespace orrery::gui
