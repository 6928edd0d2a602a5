#pragma once

#include <QAbstractTableModel>

namespace orrery::gui {

class ScenarioDocument;

/** The scenario's inline jobs, one row each (read-only; edits go through the workload editor's commands). */
class JobTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Id, Arrival, User, Kind, Model, Batch, Gpus, Work, ColumnCount };
    explicit JobTableModel(ScenarioDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ScenarioDocument* m_document;
};

} // namespace orrery::gui
