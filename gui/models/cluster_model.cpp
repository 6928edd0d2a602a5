#include "models/cluster_model.h"

#include "document/scenario_document.h"

#include <QFont>
#include <QStringList>

#include <algorithm>

namespace orrery::gui {

ClusterModel::ClusterModel(ScenarioDocument* document, QObject* parent)
    : QAbstractTableModel(parent), m_document(document)
{
    auto reset = [this] {
        beginResetModel();
        endResetModel();
    };
    connect(document, &ScenarioDocument::documentReset, this, reset);
    connect(document, &ScenarioDocument::clusterChanged, this, reset);
}

int ClusterModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_document->cluster().groups().size());
}

int ClusterModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

static QString linkText(const hardware::Link& l)
{
    return QStringLiteral("%1, %2 GB/s").arg(QString::fromStdString(hardware::toString(l.kind))).arg(l.bandwidthGBps);
}

QVariant ClusterModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const auto& g = m_document->cluster().groups()[static_cast<std::size_t>(index.row())];
    const auto& catalog = m_document->catalog();
    const hardware::GpuType* type = catalog.find(g.gpuType);
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(g.name);
        case GpuType:
            if (role == Qt::EditRole || !type)
                return QString::fromStdString(type ? type->name : g.gpuType);
            return QString::fromStdString(type->display.empty() ? type->name : type->display);
        case Nodes:
            return g.count;
        case GpusPerNode:
            return g.gpusPerNode;
        case Link:
            if (g.intraLink)
                return linkText(*g.intraLink);
            return type ? tr("%1 (type default)").arg(linkText(type->intraLink)) : QString();
        case TotalGpus:
            return g.count * g.gpusPerNode;
        }
    }
    if (role == CatalogNamesRole && index.column() == GpuType) {
        QStringList names;
        for (const auto& t : catalog.types())
            names << QString::fromStdString(t.name);
        return names;
    }
    if (role == Qt::TextAlignmentRole &&
        (index.column() == Nodes || index.column() == GpusPerNode || index.column() == TotalGpus))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == GpuType && type)
        return tr("%1: %2 GiB, %3 TFLOP/s FP16, $%4/h per GPU")
            .arg(QString::fromStdString(type->name))
            .arg(type->memoryGiB)
            .arg(type->fp16TFlops)
            .arg(type->priceUsdPerHour, 0, 'f', 2);
    return {};
}

QVariant ClusterModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Group");
    case GpuType:
        return tr("GPU type");
    case Nodes:
        return tr("Nodes");
    case GpusPerNode:
        return tr("GPUs/node");
    case Link:
        return tr("Intra-node link");
    case TotalGpus:
        return tr("GPUs");
    }
    return {};
}

Qt::ItemFlags ClusterModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() <= GpusPerNode)
        f |= Qt::ItemIsEditable;
    return f;
}

bool ClusterModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return false;
    auto groups = m_document->cluster().groups();
    auto& g = groups[static_cast<std::size_t>(index.row())];
    QString text;
    switch (index.column()) {
    case Name: {
        const QString name = value.toString().trimmed();
        if (name.isEmpty()) {
            emit validationMessage(tr("A node group needs a name."));
            return false;
        }
        for (std::size_t i = 0; i < groups.size(); ++i)
            if (static_cast<int>(i) != index.row() && QString::fromStdString(groups[i].name) == name) {
                emit validationMessage(tr("Another group is already called \"%1\"; node names would clash.").arg(name));
                return false;
            }
        g.name = name.toStdString();
        text = tr("Rename node group");
        break;
    }
    case GpuType: {
        const std::string type = value.toString().toStdString();
        if (!m_document->catalog().find(type)) {
            emit validationMessage(tr("Unknown GPU type \"%1\".").arg(value.toString()));
            return false;
        }
        g.gpuType = m_document->catalog().find(type)->name;
        text = tr("Change GPU type of %1").arg(QString::fromStdString(g.name));
        break;
    }
    case Nodes:
    case GpusPerNode: {
        bool ok = false;
        const int n = value.toInt(&ok);
        if (!ok || n <= 0 || n > 4096) {
            emit validationMessage(tr("%1 must be a whole number from 1 to 4096 (got \"%2\").")
                                       .arg(headerData(index.column(), Qt::Horizontal).toString(), value.toString()));
            return false;
        }
        (index.column() == Nodes ? g.count : g.gpusPerNode) = n;
        text = index.column() == Nodes ? tr("Change node count of %1").arg(QString::fromStdString(g.name))
                                       : tr("Change GPUs per node of %1").arg(QString::fromStdString(g.name));
        break;
    }
    default:
        return false;
    }
    const QString problem = m_document->setNodeGroups(std::move(groups), text);
    emit validationMessage(problem);
    return problem.isEmpty();
}

bool ClusterModel::addGroup(const std::string& gpuType)
{
    auto groups = m_document->cluster().groups();
    hardware::NodeGroup g;
    g.gpuType = gpuType;
    g.count = 1;
    g.gpusPerNode = 8;
    // Named after the type ("a100" for a100-40gb-sxm), numbered when the name is taken.
    const std::string base = gpuType.substr(0, gpuType.find('-'));
    const auto taken = [&](const std::string& name) {
        return std::any_of(groups.begin(), groups.end(), [&](const hardware::NodeGroup& o) { return o.name == name; });
    };
    g.name = base;
    for (int i = 2; taken(g.name); ++i)
        g.name = base + std::to_string(i);
    groups.push_back(g);
    const QString problem = m_document->setNodeGroups(std::move(groups), tr("Add node group"));
    emit validationMessage(problem);
    return problem.isEmpty();
}

bool ClusterModel::removeGroup(int row)
{
    auto groups = m_document->cluster().groups();
    if (row < 0 || row >= static_cast<int>(groups.size()))
        return false;
    if (groups.size() == 1) {
        emit validationMessage(tr("A cluster needs at least one node group."));
        return false;
    }
    const QString name = QString::fromStdString(groups[static_cast<std::size_t>(row)].name);
    groups.erase(groups.begin() + row);
    const QString problem = m_document->setNodeGroups(std::move(groups), tr("Remove node group %1").arg(name));
    emit validationMessage(problem);
    return problem.isEmpty();
}

} // namespace orrery::gui
