#include "document/scenario_commands.h"

#include "document/scenario_document.h"

namespace orrery::gui {

ChangeClusterCommand::ChangeClusterCommand(ScenarioDocument* document, State after, const QString& text)
    : QUndoCommand(text), m_document(document), m_before{document->cluster().groups(), document->cluster().network(),
                                                         document->scenario().customGpus},
      m_after(std::move(after))
{}

void ChangeClusterCommand::undo()
{
    m_document->applyCluster(m_before.groups, m_before.network, m_before.customGpus);
}

void ChangeClusterCommand::redo()
{
    m_document->applyCluster(m_after.groups, m_after.network, m_after.customGpus);
}

ChangeJobsCommand::ChangeJobsCommand(ScenarioDocument* document, std::vector<workload::Job> after,
                                     std::vector<workload::ModelSpec> modelsAfter, const QString& text)
    : QUndoCommand(text), m_document(document), m_before(document->scenario().workload.jobs), m_after(std::move(after)),
      m_modelsBefore(document->scenario().workload.customModels), m_modelsAfter(std::move(modelsAfter))
{}

void ChangeJobsCommand::undo()
{
    m_document->applyJobs(m_before, m_modelsBefore);
}

void ChangeJobsCommand::redo()
{
    m_document->applyJobs(m_after, m_modelsAfter);
}

ChangePoliciesCommand::ChangePoliciesCommand(ScenarioDocument* document, std::vector<std::string> after)
    : QUndoCommand(QObject::tr("Change policies")), m_document(document), m_before(document->scenario().policies),
      m_after(std::move(after))
{}

void ChangePoliciesCommand::undo()
{
    m_document->applyPolicies(m_before);
}

void ChangePoliciesCommand::redo()
{
    m_document->applyPolicies(m_after);
}

RenameScenarioCommand::RenameScenarioCommand(ScenarioDocument* document, std::string after)
    : QUndoCommand(QObject::tr("Rename scenario")), m_document(document), m_before(document->scenario().name),
      m_after(std::move(after))
{}

void RenameScenarioCommand::undo()
{
    m_document->applyName(m_before);
}

void RenameScenarioCommand::redo()
{
    m_document->applyName(m_after);
}

bool RenameScenarioCommand::mergeWith(const QUndoCommand* other)
{
    if (other->id() != id())
        return false;
    m_after = static_cast<const RenameScenarioCommand*>(other)->m_after;
    return true;
}

} // namespace orrery::gui
