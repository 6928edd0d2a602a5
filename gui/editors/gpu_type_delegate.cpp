#include "editors/gpu_type_delegate.h"

#include "models/cluster_model.h"

#include <QComboBox>

namespace orrery::gui {

QWidget* GpuTypeDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex& index) const
{
    auto* combo = new QComboBox(parent);
    combo->addItems(index.data(ClusterModel::CatalogNamesRole).toStringList());
    return combo;
}

void GpuTypeDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const
{
    auto* combo = static_cast<QComboBox*>(editor);
    combo->setCurrentText(index.data(Qt::EditRole).toString());
}

void GpuTypeDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const
{
    const QString value = static_cast<QComboBox*>(editor)->currentText();
    if (value != index.data(Qt::EditRole).toString())
        model->setData(index, value, Qt::EditRole);
}

} // namespace orrery::gui
