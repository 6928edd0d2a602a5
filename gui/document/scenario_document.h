#pragma once

#include "io/scenario.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

namespace orrery::gui {

/**
 * The scenario being edited: owns the io::Scenario, its undo stack and the
 * file it came from. Every edit goes through an undo command that calls one
 * of the apply*() functions, which emit a typed change signal so that models
 * refresh only what changed.
 */
class ScenarioDocument : public QObject
{
    Q_OBJECT
public:
    explicit ScenarioDocument(QObject* parent = nullptr);
    ~ScenarioDocument() override;

    const io::Scenario& scenario() const { return m_scenario; }
    const hardware::Cluster& cluster() const { return m_scenario.cluster; }
    /** The built-in catalog plus the scenario's custom GPU types. */
    const hardware::GpuCatalog& catalog() const { return m_scenario.cluster.catalog(); }
    QString filePath() const { return m_filePath; }
    /** File name for titles: the file's name, or the scenario name when never saved. */
    QString displayName() const;
    bool isModified() const;
    QUndoStack* undoStack() { return &m_undo; }

    /** Replaces everything (New/Open); clears the undo history. */
    void reset(io::Scenario scenario, const QString& filePath);
    /** Loads a scenario file; on failure leaves the document as it was and fills `error`. */
    bool load(const QString& path, QString* error);
    /** Writes atomically; marks the document clean and remembers `path`. */
    bool save(const QString& path, QString* error);

    // Edits (each pushes one undo command). The cluster edits first build the
    // cluster; an invalid one is refused with the core's message and nothing changes.
    QString setNodeGroups(std::vector<hardware::NodeGroup> groups, const QString& text);
    QString setNetwork(const hardware::Link& network);
    QString setCustomGpus(std::vector<hardware::GpuType> gpus, const QString& text);
    void setJobs(std::vector<workload::Job> jobs, const QString& text);
    /** Jobs and the custom models they use, in one step. */
    void setJobsAndModels(std::vector<workload::Job> jobs, std::vector<workload::ModelSpec> customModels,
                          const QString& text);
    void setPolicies(std::vector<std::string> policies);
    void setName(const QString& name);

    // Called by undo commands only. Each validates, then emits its signal.
    void applyCluster(std::vector<hardware::NodeGroup> groups, const hardware::Link& network,
                      std::vector<hardware::GpuType> customGpus);
    void applyJobs(std::vector<workload::Job> jobs, std::vector<workload::ModelSpec> customModels);
    void applyPolicies(std::vector<std::string> policies);
    void applyName(std::string name);

    /**
     * Rebuilds the catalog from GpuCatalog::builtin() after it changed (a calibration applied):
     * same groups, network and custom types; emits catalogChanged and clusterChanged. Not an edit: no
     * undo command, the document stays as modified as it was.
     */
    void refreshCatalog();

    /** Catalog = built-in + `customGpus` (later ones replace earlier ones of the same name). */
    static hardware::GpuCatalog catalogWith(const std::vector<hardware::GpuType>& customGpus);

signals:
    /** Everything changed (New, Open). */
    void documentReset();
    void clusterChanged();
    void catalogChanged();
    void workloadChanged();
    void policiesChanged();
    void nameChanged();
    void filePathChanged(const QString& path);
    void modifiedChanged(bool modified);

private:
    io::Scenario m_scenario;
    QString m_filePath;
    QUndoStack m_undo;
};

} // namespace orrery::gui
