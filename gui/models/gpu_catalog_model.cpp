#include "models/gpu_catalog_model.h"

#include "document/scenario_document.h"

#include <QFont>

namespace orrery::gui {

GpuCatalogModel::GpuCatalogModel(ScenarioDocument* document, QObject* parent)
    : QAbstractTableModel(parent), m_document(document)
{
    auto reset = [this] {
        beginResetModel();
        endResetModel();
    };
    connect(document, &ScenarioDocument::documentReset, this, reset);
    connect(document, &ScenarioDocument::catalogChanged, this, reset);
}

int GpuCatalogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_document->catalog().size());
}

int GpuCatalogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool GpuCatalogModel::isCustom(int row) const
{
    const auto& name = m_document->catalog().types()[static_cast<std::size_t>(row)].name;
    for (const auto& t : m_document->scenario().customGpus)
        if (t.name == name)
            return true;
    return false;
}

bool GpuCatalogModel::isCalibrated(int row) const
{
    return m_document->catalog().types()[static_cast<std::size_t>(row)].curves.has_value();
}

QVariant GpuCatalogModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const auto& t = m_document->catalog().types()[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(t.name);
        case Display:
            return QString::fromStdString(t.display);
        case Vendor:
            return QString::fromStdString(t.vendor);
        case MemoryGiB:
            return t.memoryGiB;
        case Fp16Tflops:
            return t.fp16TFlops;
        case Fp32Tflops:
            return t.fp32TFlops;
        case BandwidthGBps:
            return t.memoryBandwidthGBps;
        case Link:
            return QStringLiteral("%1 %2 GB/s")
                .arg(QString::fromStdString(hardware::toString(t.intraLink.kind)))
                .arg(t.intraLink.bandwidthGBps);
        case UsdPerHour:
            return QString::number(t.priceUsdPerHour, 'f', 2);
        case Curves:
            return t.curves ? tr("measured") : tr("published");
        }
    }
    if (role == IsCustomRole)
        return isCustom(index.row());
    if (role == IsCalibratedRole)
        return t.curves.has_value();
    if (role == Qt::ToolTipRole && index.column() == Curves)
        return t.curves ? tr("Measured kernel curves: %1").arg(QString::fromStdString(t.curves->source))
                        : tr("Published-figure defaults (docs/models/gpu-curves.md)");
    if (role == Qt::FontRole && isCustom(index.row())) {
        QFont f;
        f.setItalic(true);
        return f;
    }
    if (role == Qt::ToolTipRole)
        return isCustom(index.row()) ? tr("Custom type, saved with the scenario") : QString::fromStdString(t.source);
    if (role == Qt::TextAlignmentRole && index.column() >= MemoryGiB && index.column() != Link)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant GpuCatalogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Name");
    case Display:
        return tr("Model");
    case Vendor:
        return tr("Vendor");
    case MemoryGiB:
        return tr("Memory (GiB)");
    case Fp16Tflops:
        return tr("FP16 TFLOP/s");
    case Fp32Tflops:
        return tr("FP32 TFLOP/s");
    case BandwidthGBps:
        return tr("Mem. BW (GB/s)");
    case Link:
        return tr("Intra-node link");
    case UsdPerHour:
        return tr("$/h per GPU");
    case Curves:
        return tr("Curves");
    }
    return {};
}

} // namespace orrery::gui
