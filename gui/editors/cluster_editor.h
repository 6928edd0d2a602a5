#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace orrery::gui {

class ClusterModel;
class GpuTotalsModel;
class ScenarioDocument;

/** Node groups (editable), the network, and totals by GPU type; refused edits are explained inline. */
class ClusterEditor : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterEditor(ScenarioDocument* document, QWidget* parent = nullptr);

    ClusterModel* model() const { return m_model; }
    GpuTotalsModel* totalsModel() const { return m_totals; }
    QTableView* groupsView() const { return m_groups; }
    QString message() const;

private:
    void showMessage(const QString& message);
    void updateSummary();

    ScenarioDocument* m_document;
    ClusterModel* m_model;
    GpuTotalsModel* m_totals;
    QTableView* m_groups;
    QTableView* m_totalsView;
    QLabel* m_message;
    QLabel* m_summary;
};

} // namespace orrery::gui
