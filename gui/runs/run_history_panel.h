#pragma once

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace orrery::gui {

class RunLibrary;
class RunListModel;

/** Runs (this session's and the store's) with a filter; the current row drives the single-run views, the selection the
 * comparison. */
class RunHistoryPanel : public QWidget
{
    Q_OBJECT
public:
    RunHistoryPanel(RunLibrary* runs, QWidget* parent = nullptr);
    RunListModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    void setFilter(const QString& text);
    void selectAll();

signals:
    void compareRequested();

private:
    void selectionChanged();

    RunLibrary* m_runs;
    RunListModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    QTableView* m_view;
};

} // namespace orrery::gui
