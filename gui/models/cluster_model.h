#pragma once

#include <QAbstractTableModel>

#include <string>

namespace orrery::gui {

class ScenarioDocument;

/**
 * The cluster's node groups as an editable table. Edits are validated (names,
 * counts, GPU types) and pushed to the document as undo commands; a refused
 * edit leaves the document untouched and reports why through
 * validationMessage().
 */
class ClusterModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, GpuType, Nodes, GpusPerNode, Link, TotalGpus, ColumnCount };
    /** Qt::EditRole of GpuType holds the catalog name; this role lists the choices. */
    static constexpr int CatalogNamesRole = Qt::UserRole + 1;

    explicit ClusterModel(ScenarioDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /** Appends one node of 8 GPUs of `gpuType` (a catalog name), named after the type and numbered when that name is
     * taken. False, with validationMessage, when the document refuses it (an unknown type). */
    bool addGroup(const std::string& gpuType);
    bool removeGroup(int row);

signals:
    /** Empty when the last edit was accepted. */
    void validationMessage(const QString& message);

private:
    ScenarioDocument* m_document;
};

} // namespace orrery::gui
