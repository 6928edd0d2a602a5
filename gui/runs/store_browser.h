#pragma once

#include "store/run_record.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace orrery::gui {

class JobRunner;
class RunLibrary;
class StoredRunModel;

/**
 * Past runs from the SQLite store: list with filters (scenario, policy,
 * status, free text), load one or several into the run library (the single-run
 * views show the last, the comparison shows them all). Listing and loading run
 * on JobRunner workers, each with its own store connection.
 */
class StoreBrowser : public QWidget
{
    Q_OBJECT
public:
    StoreBrowser(RunLibrary* runs, JobRunner* runner, QString databasePath, QWidget* parent = nullptr);

    StoredRunModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QString databasePath() const { return m_path; }
    void setDatabasePath(const QString& path);
    void setPolicyFilter(const QString& policy);
    void setScenarioFilter(const QString& scenario);
    /** Loads these store ids; compares them when there are several. */
    void load(const QVector<qint64>& storeIds);
    void loadSelected();

public slots:
    void refresh();

signals:
    void listed(int count);
    /** The runs are in the library (GUI ids). */
    void loaded(const QVector<int>& runIds);
    void failed(const QString& error);

private:
    RunLibrary* m_runs;
    JobRunner* m_runner;
    QString m_path;
    StoredRunModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLabel* m_pathLabel;
    QLineEdit* m_scenario;
    QLineEdit* m_policy;
    QComboBox* m_status;
    QLineEdit* m_text;
    QTableView* m_view;
    QLabel* m_message;
};

} // namespace orrery::gui
