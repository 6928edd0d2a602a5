#include "models/gpu_totals_model.h"

#include "document/scenario_document.h"

#include <QFont>

namespace orrery::gui {

GpuTotalsModel::GpuTotalsModel(ScenarioDocument* document, QObject* parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &ScenarioDocument::documentReset, this, &GpuTotalsModel::rebuild);
    connect(document, &ScenarioDocument::clusterChanged, this, &GpuTotalsModel::rebuild);
    rebuild();
}

void GpuTotalsModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    const auto& cluster = m_document->cluster();
    Row all{tr("All"), 0, 0, 0, 0};
    for (int type : cluster.presentTypes()) {
        const auto& t = cluster.catalog().types()[static_cast<std::size_t>(type)];
        const int n = cluster.gpusOfType(type);
        Row r{QString::fromStdString(t.display.empty() ? t.name : t.display), n, n * t.memoryGiB, n * t.fp16TFlops,
              n * t.priceUsdPerHour};
        all.gpus += r.gpus;
        all.memoryGiB += r.memoryGiB;
        all.peakTflops += r.peakTflops;
        all.usdPerHour += r.usdPerHour;
        m_rows.push_back(r);
    }
    if (!m_rows.empty())
        m_rows.push_back(all);
    endResetModel();
}

int GpuTotalsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GpuTotalsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuTotalsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    const bool total = index.row() == static_cast<int>(m_rows.size()) - 1;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Type:
            return r.type;
        case Gpus:
            return r.gpus;
        case MemoryGiB:
            return QString::number(r.memoryGiB, 'f', 0);
        case PeakTflops:
            return QString::number(r.peakTflops, 'f', 0);
        case UsdPerHour:
            return QStringLiteral("$%1").arg(r.usdPerHour, 0, 'f', 2);
        }
    }
    if (role == Qt::UserRole) { // raw numbers for export and tests
        switch (index.column()) {
        case Type:
            return r.type;
        case Gpus:
            return r.gpus;
        case MemoryGiB:
            return r.memoryGiB;
        case PeakTflops:
            return r.peakTflops;
        case UsdPerHour:
            return r.usdPerHour;
        }
    }
    if (role == Qt::FontRole && total) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole && index.column() != Type)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant GpuTotalsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Type:
        return tr("GPU type");
    case Gpus:
        return tr("GPUs");
    case MemoryGiB:
        return tr("Memory (GiB)");
    case PeakTflops:
        return tr("Peak FP16 TFLOP/s");
    case UsdPerHour:
        return tr("$/h");
    }
    return {};
}

} // namespace orrery::gui
