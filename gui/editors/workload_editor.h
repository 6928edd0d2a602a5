#pragma once

#include <QWidget>

class QChartView;
class QLabel;
class QTableView;

namespace orrery::gui {

class JobTableModel;
class ScenarioDocument;
struct JobMix;

/** The job table, a trace summary (jobs, GPU-demand histogram, arrivals over time) and job-mix generation. */
class WorkloadEditor : public QWidget
{
    Q_OBJECT
public:
    explicit WorkloadEditor(ScenarioDocument* document, QWidget* parent = nullptr);
    JobTableModel* model() const { return m_model; }
    /** Appends the jobs of `mix` (and its custom model) as one undoable step. */
    void addMix(const JobMix& mix);
    void removeSelected();
    QTableView* jobsView() const { return m_jobs; }

private:
    void addMixFromDialog();
    void updateSummary();

    ScenarioDocument* m_document;
    JobTableModel* m_model;
    QTableView* m_jobs;
    QLabel* m_summary;
    QChartView* m_demand;
    QChartView* m_arrivals;
};

} // namespace orrery::gui
