#include "sweeps/cluster_edits_section.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace orrery::gui {

namespace {

struct KindChoice
{
    sweep::AxisKind kind;
    const char* text;
};

const KindChoice kEditKinds[] = {
    {sweep::AxisKind::ScaleNodes, QT_TRANSLATE_NOOP("ClusterEditsSection", "Scale node group")},
    {sweep::AxisKind::NodeCount, QT_TRANSLATE_NOOP("ClusterEditsSection", "Set node count")},
    {sweep::AxisKind::GpuType, QT_TRANSLATE_NOOP("ClusterEditsSection", "Swap GPU type")},
    {sweep::AxisKind::AddNodes, QT_TRANSLATE_NOOP("ClusterEditsSection", "Add nodes of a type")},
};

QString placeholderOf(sweep::AxisKind kind)
{
    switch (kind) {
    case sweep::AxisKind::ScaleNodes:
        return ClusterEditsSection::tr("factors, e.g. 0.5, 1, 2");
    case sweep::AxisKind::NodeCount:
        return ClusterEditsSection::tr("node counts, e.g. 1, 3, 6 or 1-8");
    case sweep::AxisKind::GpuType:
        return ClusterEditsSection::tr("GPU types, e.g. v100-32gb, h100-sxm");
    default:
        return ClusterEditsSection::tr("nodes to add, e.g. 0, 1, 2");
    }
}

} // namespace

struct ClusterEditsSection::Row
{
    QWidget* widget = nullptr;
    QComboBox* kind = nullptr;
    QComboBox* target = nullptr;
    QSpinBox* gpus = nullptr;
    QLineEdit* values = nullptr;
    QComboBox* addType = nullptr;
};

ClusterEditsSection::ClusterEditsSection(hardware::Cluster cluster, QWidget* parent)
    : QGroupBox(tr("Cluster edits"), parent), m_cluster(std::move(cluster))
{
    auto* cl = new QVBoxLayout(this);
    m_rowsLayout = new QVBoxLayout;
    cl->addLayout(m_rowsLayout);
    auto* add = new QPushButton(tr("Add Cluster Edit"));
    auto* addRow = new QHBoxLayout;
    addRow->addWidget(add);
    addRow->addStretch();
    cl->addLayout(addRow);
    connect(add, &QPushButton::clicked, this, [this] {
        addEdit(sweep::AxisKind::ScaleNodes,
                m_cluster.groups().empty() ? QString() : QString::fromStdString(m_cluster.groups()[0].name), QString());
    });
}

ClusterEditsSection::~ClusterEditsSection() = default;

int ClusterEditsSection::addEdit(sweep::AxisKind kind, const QString& target, const QString& values, int gpusPerNode)
{
    auto row = std::make_unique<Row>();
    Row* r = row.get();
    r->widget = new QWidget;
    auto* h = new QHBoxLayout(r->widget);
    h->setContentsMargins(0, 0, 0, 0);
    r->kind = new QComboBox;
    for (const auto& k : kEditKinds)
        r->kind->addItem(tr(k.text), static_cast<int>(k.kind));
    r->kind->setCurrentIndex(std::max(0, r->kind->findData(static_cast<int>(kind))));
    r->target = new QComboBox;
    r->target->setMinimumWidth(150);
    r->gpus = new QSpinBox;
    r->gpus->setRange(1, 64);
    r->gpus->setValue(gpusPerNode);
    r->gpus->setSuffix(tr(" GPUs/node"));
    r->values = new QLineEdit(values);
    r->addType = new QComboBox;
    r->addType->setToolTip(tr("Append a GPU type of the catalog to the values"));
    auto* remove = new QToolButton;
    remove->setText(QStringLiteral("\u2715"));
    remove->setToolTip(tr("Remove this edit"));
    h->addWidget(r->kind);
    h->addWidget(r->target);
    h->addWidget(r->gpus);
    h->addWidget(r->values, 1);
    h->addWidget(r->addType);
    h->addWidget(remove);
    m_rowsLayout->addWidget(r->widget);
    refillTargets(*r);
    const int at = r->target->findData(target);
    if (at >= 0) {
        r->target->setCurrentIndex(at);
    } else if (!target.isEmpty()) {
        r->target->addItem(target, target);
        r->target->setCurrentIndex(r->target->count() - 1);
    }
    connect(r->kind, &QComboBox::currentIndexChanged, this, [this, r] {
        refillTargets(*r);
        emit changed();
    });
    connect(r->target, &QComboBox::currentIndexChanged, this, &ClusterEditsSection::changed);
    connect(r->gpus, &QSpinBox::valueChanged, this, &ClusterEditsSection::changed);
    connect(r->values, &QLineEdit::textChanged, this, &ClusterEditsSection::changed);
    connect(r->addType, &QComboBox::activated, this, [r](int index) {
        if (index <= 0)
            return;
        const QString text = r->values->text().trimmed();
        r->values->setText(text.isEmpty() ? r->addType->itemText(index)
                                          : text + QStringLiteral(", ") + r->addType->itemText(index));
        r->addType->setCurrentIndex(0);
    });
    connect(remove, &QToolButton::clicked, this, [this, r] { this->remove(r); });
    m_rows.push_back(std::move(row));
    emit changed();
    return static_cast<int>(m_rows.size()) - 1;
}

void ClusterEditsSection::removeEdit(int index)
{
    if (index >= 0 && index < count())
        remove(m_rows[static_cast<std::size_t>(index)].get());
}

void ClusterEditsSection::setKind(int index, sweep::AxisKind kind)
{
    if (index < 0 || index >= count())
        return;
    QComboBox* box = m_rows[static_cast<std::size_t>(index)]->kind;
    box->setCurrentIndex(std::max(0, box->findData(static_cast<int>(kind))));
}

void ClusterEditsSection::remove(Row* row)
{
    const auto it = std::find_if(m_rows.begin(), m_rows.end(), [row](const auto& r) { return r.get() == row; });
    if (it == m_rows.end())
        return;
    (*it)->widget->deleteLater();
    m_rows.erase(it);
    emit changed();
}

void ClusterEditsSection::refillTargets(Row& r)
{
    const auto kind = static_cast<sweep::AxisKind>(r.kind->currentData().toInt());
    const QSignalBlocker block(r.target);
    const QString previous = r.target->currentData().toString();
    r.target->clear();
    const auto& catalog = m_cluster.catalog();
    if (kind == sweep::AxisKind::AddNodes) {
        for (const auto& t : catalog.types())
            r.target->addItem(QString::fromStdString(t.name), QString::fromStdString(t.name));
    } else {
        for (const auto& g : m_cluster.groups())
            r.target->addItem(QStringLiteral("%1 (%2 x %3 %4)")
                                  .arg(QString::fromStdString(g.name))
                                  .arg(g.count)
                                  .arg(g.gpusPerNode)
                                  .arg(QString::fromStdString(g.gpuType)),
                              QString::fromStdString(g.name));
    }
    const int keep = r.target->findData(previous);
    if (keep >= 0)
        r.target->setCurrentIndex(keep);
    r.gpus->setVisible(kind == sweep::AxisKind::AddNodes);
    r.addType->setVisible(kind == sweep::AxisKind::GpuType);
    if (r.addType->count() == 0) {
        r.addType->addItem(tr("add a type..."));
        for (const auto& t : catalog.types())
            r.addType->addItem(QString::fromStdString(t.name));
    }
    r.values->setPlaceholderText(placeholderOf(kind));
}

void ClusterEditsSection::writeTo(SweepDraft& draft) const
{
    draft.clusterEdits.clear();
    for (const auto& r : m_rows)
        draft.clusterEdits.push_back({static_cast<sweep::AxisKind>(r->kind->currentData().toInt()),
                                      r->target->currentData().toString().toStdString(), r->gpus->value(),
                                      r->values->text().toStdString()});
}

} // namespace orrery::gui
