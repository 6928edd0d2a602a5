#pragma once

#include "serve/attainment_curves.h"
#include "serve/serving_run.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QToolButton;

namespace orrery::gui {

class AttainmentChart;
class ClusterPicture;
class JobRunner;
class ServingCdfChart;
class ServingInputs;

/** What the Serving tab's CSV export writes (docs/database.md, "Serving runs", for the columns). */
enum class ServingCsv { Run, Groups, Models, Cdf, Curves };

/**
 * The Serving tab (docs/gui.md, "The Serving tab"; AlpaServe, docs/serving.md): models and traffic on the left; Place
 * runs the chosen method (core's serve::runServing) and shows its device groups and replicas as a cluster picture
 * and the latency CDF of the served requests; the traffic is Gamma arrivals or a MAF1/MAF2 trace file (read on a
 * worker when it is named, its size or the reader's error shown under it); Curves computes SLO attainment along the
 * rate, the CV or the SLO scale for AlpaServe, Selective Replication and Clockwork++ (serve::attainmentCurves). Both
 * run on a JobRunner worker with progress and Cancel. Save stores the shown run in the open run database (schema 10's
 * serving tables); the stored serving runs are listed and reload as they were stored; Export CSV writes the run or the
 * curves.
 */
class ServingPanel : public QWidget
{
    Q_OBJECT
public:
    ServingPanel(JobRunner* runner, QString databasePath, QWidget* parent = nullptr);

    QString databasePath() const { return m_path; }
    void setDatabasePath(const QString& path);

    ServingInputs* inputs() const { return m_inputs; }
    ClusterPicture* clusterPicture() const { return m_picture; }
    AttainmentChart* attainmentChart() const { return m_chart; }
    ServingCdfChart* cdfChart() const { return m_cdf; }
    QTabWidget* views() const { return m_views; }
    QComboBox* curveAxis() const { return m_axis; }
    QLineEdit* curveValues() const { return m_values; }
    QPushButton* placeButton() const { return m_place; }
    QPushButton* curvesButton() const { return m_curvesButton; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* saveButton() const { return m_save; }
    QListWidget* storedList() const { return m_stored; }
    QSpinBox* segment() const { return m_segment; }
    QLabel* summary() const { return m_summary; }
    QLabel* messageLabel() const { return m_message; }

    /** The run shown (placed here or loaded from the store). */
    const std::optional<serve::ServingRun>& currentRun() const { return m_run; }
    const std::optional<serve::AttainmentCurves>& curves() const { return m_curves; }
    bool isBusy() const { return m_task != 0; }
    /** The values of the curve field ("10, 20, 40"); empty, with `error` set, when one is not a number. */
    std::vector<double> curveValueList(QString* error = nullptr) const;
    bool exportCsv(const QString& path, ServingCsv what, QString* error = nullptr) const;

public slots:
    void place();
    void computeCurves();
    void cancel();
    /** Stores the shown run in the run database (on a worker); saved() gives its id. */
    void saveToDatabase();
    /** Lists the database's serving runs (on a worker); storedListed() says when. */
    void refreshStored();
    /** Loads a stored serving run and shows it with its inputs (on a worker); runShown() says when. */
    void loadStored(qint64 id);
    void exportCsvInteractive(ServingCsv what);
    /** Reads a trace file on a worker and shows its size, or the reader's error, under it; traceRead() says when. */
    void readTrace(const QString& path);

signals:
    void placed();
    void curvesReady();
    void cancelled();
    void failed(const QString& error);
    void saved(qint64 id);
    void storedListed(int count);
    void runShown();
    void traceRead(bool ok);

private:
    /** The left column: inputs, Place and Cancel, the curves' axis, progress, the stored runs. */
    QWidget* buildControls();
    /** The right column: the summary and the cluster, curve and CDF views. */
    QWidget* buildViews();
    void connectControls();
    void showRun(serve::ServingRun run);
    void showSegment(int segment);
    void setBusy(bool busy, const QString& what = {});
    void showMessage(const QString& text, bool error = false);
    void setDefaultValues();
    void updateAxisTitles();
    /** The form's problem (a trace chosen and none named) reported as a failure; true when there is one. */
    bool refuseInputs();
    QString taskKey(const QString& what) const;

    JobRunner* m_runner;
    QString m_path;
    quint64 m_task = 0;
    std::optional<serve::ServingRun> m_run;
    std::optional<serve::AttainmentCurves> m_curves;
    quint64 m_shown = 0; ///< counts showRun(): a save's result replaces the shown run only if it is still that one
    bool m_showLatestStored = true; ///< the first listing shows the newest stored run when none is shown yet
    ServingInputs* m_inputs;
    QPushButton* m_place;
    QPushButton* m_curvesButton;
    QPushButton* m_cancel;
    QPushButton* m_save;
    QPushButton* m_load;
    QToolButton* m_export;
    QComboBox* m_axis;
    QLineEdit* m_values;
    QProgressBar* m_bar;
    QLabel* m_message;
    QListWidget* m_stored;
    QLabel* m_summary;
    QTabWidget* m_views;
    ClusterPicture* m_picture;
    QSpinBox* m_segment;
    AttainmentChart* m_chart;
    ServingCdfChart* m_cdf;
};

} // namespace orrery::gui
