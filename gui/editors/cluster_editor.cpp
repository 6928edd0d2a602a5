#include "editors/cluster_editor.h"

#include "document/scenario_document.h"
#include "editors/gpu_type_delegate.h"
#include "models/cluster_model.h"
#include "models/gpu_totals_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace orrery::gui {

ClusterEditor::ClusterEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_model(new ClusterModel(document, this)),
      m_totals(new GpuTotalsModel(document, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    layout->addWidget(bar);

    m_groups = new QTableView(this);
    m_groups->setModel(m_model);
    m_groups->setItemDelegateForColumn(ClusterModel::GpuType, new GpuTypeDelegate(m_groups));
    m_groups->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_groups->verticalHeader()->hide();
    m_groups->horizontalHeader()->setStretchLastSection(true);
    m_groups->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                              QAbstractItemView::AnyKeyPressed);
    layout->addWidget(m_groups, 3);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_message->hide();
    layout->addWidget(m_message);

    m_summary = new QLabel(this);
    layout->addWidget(m_summary);

    m_totalsView = new QTableView(this);
    m_totalsView->setModel(m_totals);
    m_totalsView->verticalHeader()->hide();
    m_totalsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_totalsView->horizontalHeader()->setStretchLastSection(true);
    m_totalsView->setSelectionMode(QAbstractItemView::NoSelection);
    layout->addWidget(m_totalsView, 2);

    // A new group asks for its GPU type (a copy of the last group made planners edit the type every time).
    auto* add = new QToolButton(bar);
    add->setObjectName(QStringLiteral("AddGroupButton"));
    add->setText(tr("Add group"));
    add->setToolTip(tr("Add one node of 8 GPUs of the type you pick (edit the count and size in the table)"));
    add->setPopupMode(QToolButton::InstantPopup);
    auto* types = new QMenu(add);
    add->setMenu(types);
    connect(types, &QMenu::aboutToShow, this, [this, types] {
        types->clear();
        for (const auto& t : m_document->catalog().types()) {
            const std::string name = t.name;
            types->addAction(QString::fromStdString(t.display.empty() ? t.name : t.display),
                             [this, name] { m_model->addGroup(name); });
        }
    });
    bar->addWidget(add);
    bar->addAction(tr("Remove group"), this, [this] {
        const QModelIndex i = m_groups->currentIndex();
        if (i.isValid())
            m_model->removeGroup(i.row());
    });
    connect(m_model, &ClusterModel::validationMessage, this, &ClusterEditor::showMessage);
    connect(document, &ScenarioDocument::clusterChanged, this, &ClusterEditor::updateSummary);
    connect(document, &ScenarioDocument::documentReset, this, [this] {
        showMessage({});
        updateSummary();
    });
    auto fit = [this] { m_groups->resizeColumnsToContents(); };
    connect(m_model, &QAbstractItemModel::modelReset, this, fit);
    updateSummary();
    fit();
}

QString ClusterEditor::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
}

void ClusterEditor::showMessage(const QString& message)
{
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

void ClusterEditor::updateSummary()
{
    const auto& c = m_document->cluster();
    m_summary->setText(tr("<b>%1 GPUs</b> on %2 nodes, network %3 at %4 GB/s")
                           .arg(c.totalGpus())
                           .arg(c.nodes().size())
                           .arg(QString::fromStdString(hardware::toString(c.network().kind)))
                           .arg(c.network().bandwidthGBps));
}

} // namespace orrery::gui
