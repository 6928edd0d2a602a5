#include "document/scenario_document.h"

#include "document/scenario_commands.h"
#include "io/error.h"

#include <QFileInfo>

namespace orrery::gui {

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent)
{
    connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

ScenarioDocument::~ScenarioDocument() = default;

QString ScenarioDocument::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    return m_scenario.name.empty() ? tr("Untitled") : QString::fromStdString(m_scenario.name);
}

bool ScenarioDocument::isModified() const
{
    return !m_undo.isClean();
}

void ScenarioDocument::reset(io::Scenario scenario, const QString& filePath)
{
    m_scenario = std::move(scenario);
    m_undo.clear();
    m_undo.setClean();
    if (m_filePath != filePath) {
        m_filePath = filePath;
        emit filePathChanged(m_filePath);
    }
    emit documentReset();
    emit modifiedChanged(false);
}

bool ScenarioDocument::load(const QString& path, QString* error)
{
    try {
        reset(io::loadScenario(path.toStdString()), path);
        return true;
    } catch (const Error& e) {
        if (error)
            *error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
    }
    return false;
}

bool ScenarioDocument::save(const QString& path, QString* error)
{
    try {
        io::saveScenario(m_scenario, path.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_scenario.sourcePath = path.toStdString();
    m_undo.setClean();
    if (m_filePath != path) {
        m_filePath = path;
        emit filePathChanged(m_filePath);
    }
    return true;
}

hardware::GpuCatalog ScenarioDocument::catalogWith(const std::vector<hardware::GpuType>& customGpus)
{
    hardware::GpuCatalog catalog = hardware::GpuCatalog::builtin();
    for (const auto& t : customGpus)
        catalog.add(t);
    return catalog;
}

static QString tryCluster(const std::vector<hardware::NodeGroup>& groups, const hardware::Link& network,
                          const std::vector<hardware::GpuType>& customGpus)
{
    try {
        hardware::Cluster(groups, network, ScenarioDocument::catalogWith(customGpus));
        return {};
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

QString ScenarioDocument::setNodeGroups(std::vector<hardware::NodeGroup> groups, const QString& text)
{
    ChangeClusterCommand::State after{std::move(groups), cluster().network(), m_scenario.customGpus};
    if (QString problem = tryCluster(after.groups, after.network, after.customGpus); !problem.isEmpty())
        return problem;
    m_undo.push(new ChangeClusterCommand(this, std::move(after), text));
    return {};
}

QString ScenarioDocument::setNetwork(const hardware::Link& network)
{
    ChangeClusterCommand::State after{cluster().groups(), network, m_scenario.customGpus};
    if (QString problem = tryCluster(after.groups, after.network, after.customGpus); !problem.isEmpty())
        return problem;
    m_undo.push(new ChangeClusterCommand(this, std::move(after), tr("Change network")));
    return {};
}

QString ScenarioDocument::setCustomGpus(std::vector<hardware::GpuType> gpus, const QString& text)
{
    ChangeClusterCommand::State after{cluster().groups(), cluster().network(), std::move(gpus)};
    if (QString problem = tryCluster(after.groups, after.network, after.customGpus); !problem.isEmpty())
        return problem;
    m_undo.push(new ChangeClusterCommand(this, std::move(after), text));
    return {};
}

void ScenarioDocument::setJobs(std::vector<workload::Job> jobs, const QString& text)
{
    m_undo.push(new ChangeJobsCommand(this, std::move(jobs), m_scenario.workload.customModels, text));
}

void ScenarioDocument::setJobsAndModels(std::vector<workload::Job> jobs, std::vector<workload::ModelSpec> customModels,
                                        const QString& text)
{
    m_undo.push(new ChangeJobsCommand(this, std::move(jobs), std::move(customModels), text));
}

void ScenarioDocument::setPolicies(std::vector<std::string> policies)
{
    if (policies != m_scenario.policies)
        m_undo.push(new ChangePoliciesCommand(this, std::move(policies)));
}

void ScenarioDocument::setName(const QString& name)
{
    if (name.toStdString() != m_scenario.name)
        m_undo.push(new RenameScenarioCommand(this, name.toStdString()));
}

void ScenarioDocument::applyCluster(std::vector<hardware::NodeGroup> groups, const hardware::Link& network,
                                    std::vector<hardware::GpuType> customGpus)
{
    const bool catalogChange = customGpus != m_scenario.customGpus;
    // Validated by the set*() functions before the command was pushed.
    m_scenario.cluster = hardware::Cluster(std::move(groups), network, catalogWith(customGpus));
    m_scenario.customGpus = std::move(customGpus);
    if (catalogChange)
        emit catalogChanged();
    emit clusterChanged();
}

void ScenarioDocument::refreshCatalog()
{
    m_scenario.cluster = hardware::Cluster(m_scenario.cluster.groups(), m_scenario.cluster.network(),
                                           catalogWith(m_scenario.customGpus));
    emit catalogChanged();
    emit clusterChanged();
}

void ScenarioDocument::applyJobs(std::vector<workload::Job> jobs, std::vector<workload::ModelSpec> customModels)
{
    m_scenario.workload.jobs = std::move(jobs);
    m_scenario.workload.customModels = std::move(customModels);
    emit workloadChanged();
}

void ScenarioDocument::applyPolicies(std::vector<std::string> policies)
{
    m_scenario.policies = std::move(policies);
    emit policiesChanged();
}

void ScenarioDocument::applyName(std::string name)
{
    m_scenario.name = std::move(name);
    emit nameChanged();
}

} // namespace orrery::gui
