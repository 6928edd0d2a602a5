#pragma once

#include "io/scenario.h"

#include <QUndoCommand>

namespace orrery::gui {

class ScenarioDocument;

/**
 * The cluster as one value (groups, network, custom GPU types), swapped whole
 * on undo/redo. Clusters are small, so whole snapshots keep every command
 * trivially correct.
 */
class ChangeClusterCommand : public QUndoCommand
{
public:
    struct State
    {
        std::vector<hardware::NodeGroup> groups;
        hardware::Link network;
        std::vector<hardware::GpuType> customGpus;
    };
    ChangeClusterCommand(ScenarioDocument* document, State after, const QString& text);
    void undo() override;
    void redo() override;

private:
    ScenarioDocument* m_document;
    State m_before;
    State m_after;
};

/** Replaces the inline job list and the custom models. */
class ChangeJobsCommand : public QUndoCommand
{
public:
    ChangeJobsCommand(ScenarioDocument* document, std::vector<workload::Job> after,
                      std::vector<workload::ModelSpec> modelsAfter, const QString& text);
    void undo() override;
    void redo() override;

private:
    ScenarioDocument* m_document;
    std::vector<workload::Job> m_before;
    std::vector<workload::Job> m_after;
    std::vector<workload::ModelSpec> m_modelsBefore;
    std::vector<workload::ModelSpec> m_modelsAfter;
};

/** Replaces the list of policies to compare. */
class ChangePoliciesCommand : public QUndoCommand
{
public:
    ChangePoliciesCommand(ScenarioDocument* document, std::vector<std::string> after);
    void undo() override;
    void redo() override;

private:
    ScenarioDocument* m_document;
    std::vector<std::string> m_before;
    std::vector<std::string> m_after;
};

/** Renames the scenario; consecutive renames merge into one step. */
class RenameScenarioCommand : public QUndoCommand
{
public:
    RenameScenarioCommand(ScenarioDocument* document, std::string after);
    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    ScenarioDocument* m_document;
    std::string m_before;
    std::string m_after;
};

} // namespace orrery::gui
