#pragma once

#include <QAbstractTableModel>

namespace orrery::gui {

class RunLibrary;

/** The runs of a RunLibrary, newest last: name, policy, jobs, mean JCT, makespan, when, stored. */
class RunListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Policy, Scenario, Jobs, MeanJct, Makespan, Finished, Stored, ColumnCount };
    static constexpr int RunIdRole = Qt::UserRole + 1;

    explicit RunListModel(RunLibrary* runs, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    RunLibrary* m_runs;
};

} // namespace orrery::gui
