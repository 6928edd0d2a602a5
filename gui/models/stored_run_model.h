#pragma once

#include "store/run_record.h"

#include <QAbstractTableModel>

#include <vector>

namespace orrery::gui {

/** Runs listed from the SQLite store (store::RunRecord rows), newest first as the store returns them. */
class StoredRunModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Id, Scenario, Policy, Status, Jobs, MeanJct, Makespan, Cost, Started, ColumnCount };
    static constexpr int StoreIdRole = Qt::UserRole + 1;
    static constexpr int SortRole = Qt::UserRole + 2;

    explicit StoredRunModel(QObject* parent = nullptr);
    void setRecords(std::vector<store::RunRecord> records);
    const std::vector<store::RunRecord>& records() const { return m_records; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<store::RunRecord> m_records;
};

} // namespace orrery::gui
