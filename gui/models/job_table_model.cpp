#include "models/job_table_model.h"

#include "document/scenario_document.h"
#include "results/palette.h"

namespace orrery::gui {

JobTableModel::JobTableModel(ScenarioDocument* document, QObject* parent)
    : QAbstractTableModel(parent), m_document(document)
{
    auto reset = [this] {
        beginResetModel();
        endResetModel();
    };
    connect(document, &ScenarioDocument::documentReset, this, reset);
    connect(document, &ScenarioDocument::workloadChanged, this, reset);
}

int JobTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_document->scenario().workload.jobs.size());
}

int JobTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const auto& j = m_document->scenario().workload.jobs[static_cast<std::size_t>(index.row())];
    const bool serverless = j.kind == workload::JobKind::Serverless;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Id:
            return QString::fromStdString(j.id);
        case Arrival:
            return formatDuration(j.arrivalS);
        case User:
            return QString::fromStdString(j.user);
        case Kind:
            return serverless ? tr("model") : tr("fixed GPUs");
        case Model:
            return QString::fromStdString(serverless ? j.model : (j.jobType.empty() ? j.model : j.jobType));
        case Batch:
            return serverless ? QVariant(j.config.globalBatch) : QVariant();
        case Gpus:
            if (serverless)
                return tr("auto");
            return j.gpuType.empty() ? QString::number(j.gpus)
                                     : QStringLiteral("%1 x %2").arg(j.gpus).arg(QString::fromStdString(j.gpuType));
        case Work:
            if (j.iterations > 0)
                return tr("%1 iterations").arg(j.iterations, 0, 'f', 0);
            return formatDuration(j.durationS);
        }
    }
    if (role == Qt::UserRole && index.column() == Arrival)
        return j.arrivalS;
    if (role == Qt::TextAlignmentRole &&
        (index.column() == Arrival || index.column() == Batch || index.column() == Gpus))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant JobTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id:
        return tr("Job");
    case Arrival:
        return tr("Arrival");
    case User:
        return tr("User");
    case Kind:
        return tr("Kind");
    case Model:
        return tr("Model / type");
    case Batch:
        return tr("Batch");
    case Gpus:
        return tr("GPUs");
    case Work:
        return tr("Work");
    }
    return {};
}

} // namespace orrery::gui
