#include "models/plan_table_model.h"

namespace orrery::gui {

PlanTableModel::PlanTableModel(QObject* parent) : QAbstractTableModel(parent)
{}

void PlanTableModel::setPlans(std::vector<estimate::Plan> plans, QHash<QString, QString> displayNames)
{
    beginResetModel();
    m_plans = std::move(plans);
    m_display = std::move(displayNames);
    endResetModel();
}

int PlanTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_plans.size());
}

int PlanTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& p = m_plans[static_cast<std::size_t>(index.row())];
    const QString gpu = QString::fromStdString(p.gpu);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Gpu:
            return gpu; // short: the figures must stay in view; the tooltip has the full name
        case Count:
            return p.count;
        case Dp:
            return p.par.dp;
        case Tp:
            return p.par.tp;
        case Pp:
            return p.par.pp;
        case Ep:
            return p.par.ep;
        case Cp:
            return p.par.cp;
        case MicroBatch:
            return p.microBatch;
        case MemoryGiB:
            return QString::number(p.memoryGiB, 'f', 1);
        case SamplesPerS:
            return QString::number(p.samplesPerS, 'f', p.samplesPerS < 10 ? 2 : 1);
        case UsdPerHour:
            return QString::number(p.usdPerHour, 'f', 2);
        default:
            return {};
        }
    }
    if (role == Qt::UserRole) { // raw values, for sorting and tests
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Gpu:
            return gpu;
        case Count:
            return p.count;
        case Dp:
            return p.par.dp;
        case Tp:
            return p.par.tp;
        case Pp:
            return p.par.pp;
        case Ep:
            return p.par.ep;
        case Cp:
            return p.par.cp;
        case MicroBatch:
            return p.microBatch;
        case MemoryGiB:
            return p.memoryGiB;
        case SamplesPerS:
            return p.samplesPerS;
        case UsdPerHour:
            return p.usdPerHour;
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Gpu ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                     : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole)
        return tr("%1 x %2: dp %3, tp %4, pp %5%6, micro-batch %7; %8 GiB per GPU; %9 s per iteration")
            .arg(p.count)
            .arg(m_display.value(gpu, gpu))
            .arg(p.par.dp)
            .arg(p.par.tp)
            .arg(p.par.pp)
            .arg((p.par.ep > 1 ? tr(", ep %1").arg(p.par.ep) : QString()) +
                 (p.par.cp > 1 ? tr(", cp %1").arg(p.par.cp) : QString()))
            .arg(p.microBatch)
            .arg(p.memoryGiB, 0, 'f', 2)
            .arg(p.iterationS, 0, 'g', 3);
    return {};
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case Rank:
        return tr("#");
    case Gpu:
        return tr("GPU type");
    case Count:
        return tr("GPUs");
    case Dp:
        return tr("dp");
    case Tp:
        return tr("tp");
    case Pp:
        return tr("pp");
    case Ep:
        return tr("ep");
    case Cp:
        return tr("cp");
    case MicroBatch:
        return tr("micro");
    case MemoryGiB:
        return tr("GiB/GPU");
    case SamplesPerS:
        return tr("samples/s");
    case UsdPerHour:
        return tr("$/h");
    default:
        return {};
    }
}

} // namespace orrery::gui
