#include "editors/gpu_catalog_view.h"

#include "document/scenario_document.h"
#include "editors/gpu_type_dialog.h"
#include "models/gpu_catalog_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace orrery::gui {

GpuCatalogView::GpuCatalogView(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_model(new GpuCatalogModel(document, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Add custom type..."), this, &GpuCatalogView::addType);
    bar->addAction(tr("Edit..."), this, &GpuCatalogView::editType);
    bar->addAction(tr("Remove custom"), this, &GpuCatalogView::removeType);
    layout->addWidget(bar);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->setSortingEnabled(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_view, &QTableView::doubleClicked, this, &GpuCatalogView::editType);
    layout->addWidget(m_view);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_message->hide();
    layout->addWidget(m_message);
}

QString GpuCatalogView::addOrReplaceCustom(const hardware::GpuType& type)
{
    auto custom = m_document->scenario().customGpus;
    bool replaced = false;
    for (auto& t : custom)
        if (t.name == type.name) {
            t = type;
            replaced = true;
        }
    if (!replaced)
        custom.push_back(type);
    const QString problem = m_document->setCustomGpus(
        std::move(custom), replaced ? tr("Edit GPU type %1").arg(QString::fromStdString(type.name))
                                    : tr("Add GPU type %1").arg(QString::fromStdString(type.name)));
    m_message->setText(problem);
    m_message->setVisible(!problem.isEmpty());
    return problem;
}

void GpuCatalogView::addType()
{
    hardware::GpuType seed;
    const QModelIndex i = m_view->currentIndex();
    if (i.isValid()) { // start from the selected type's figures
        seed = m_document->catalog().types()[static_cast<std::size_t>(i.row())];
        seed.name += "-custom";
        seed.display += " (custom)";
        seed.aliases.clear();
    }
    GpuTypeDialog dialog(seed, this);
    if (dialog.exec() == QDialog::Accepted)
        addOrReplaceCustom(dialog.gpuType());
}

void GpuCatalogView::editType()
{
    const QModelIndex i = m_view->currentIndex();
    if (!i.isValid())
        return;
    hardware::GpuType t = m_document->catalog().types()[static_cast<std::size_t>(i.row())];
    if (!m_model->isCustom(i.row())) {
        // Built-in types stay as shipped; editing one makes a custom copy.
        t.name += "-custom";
        t.aliases.clear();
    }
    GpuTypeDialog dialog(t, this);
    if (dialog.exec() == QDialog::Accepted)
        addOrReplaceCustom(dialog.gpuType());
}

void GpuCatalogView::removeType()
{
    const QModelIndex i = m_view->currentIndex();
    if (!i.isValid() || !m_model->isCustom(i.row()))
        return;
    const std::string name = m_document->catalog().types()[static_cast<std::size_t>(i.row())].name;
    auto custom = m_document->scenario().customGpus;
    std::erase_if(custom, [&](const hardware::GpuType& t) { return t.name == name; });
    const QString problem =
        m_document->setCustomGpus(std::move(custom), tr("Remove GPU type %1").arg(QString::fromStdString(name)));
    m_message->setText(problem.isEmpty() ? QString() : tr("Cannot remove: %1").arg(problem));
    m_message->setVisible(!problem.isEmpty());
}

} // namespace orrery::gui
