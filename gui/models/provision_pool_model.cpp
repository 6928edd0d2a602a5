#include "models/provision_pool_model.h"

#include <QColor>

namespace orrery::gui {

ProvisionPoolModel::ProvisionPoolModel(QObject* parent) : QAbstractTableModel(parent)
{}

void ProvisionPoolModel::setTypes(const std::vector<hardware::GpuType>& types)
{
    beginResetModel();
    m_rows.clear();
    for (const auto& t : types)
        m_rows.push_back({t, false, 0, t.priceUsdPerHour});
    endResetModel();
    emit poolChanged();
}

bool ProvisionPoolModel::setQuota(const QString& name, int quota, double price)
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        auto& r = m_rows[i];
        if (QString::fromStdString(r.gpu.name) != name)
            continue;
        r.used = quota > 0;
        r.quota = quota;
        if (price >= 0)
            r.price = price;
        const int row = static_cast<int>(i);
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        emit poolChanged();
        return true;
    }
    return false;
}

void ProvisionPoolModel::clearUse()
{
    for (auto& r : m_rows)
        r.used = false;
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit poolChanged();
}

std::vector<provision::PoolGpu> ProvisionPoolModel::pool() const
{
    std::vector<provision::PoolGpu> out;
    for (const auto& r : m_rows)
        if (r.used && r.quota > 0)
            out.push_back({r.gpu, r.quota, r.price});
    return out;
}

int ProvisionPoolModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProvisionPoolModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProvisionPoolModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::CheckStateRole && index.column() == Gpu)
        return r.used ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case Gpu:
            return QString::fromStdString(r.gpu.name); // short: quota and price must stay in view
        case Quota:
            return r.quota;
        case Price:
            return role == Qt::EditRole ? QVariant(r.price) : QVariant(QString::number(r.price, 'f', 2));
        default:
            return {};
        }
    }
    if (role == Qt::ForegroundRole && !r.used)
        return QColor(0x80, 0x80, 0x80);
    if (role == Qt::ToolTipRole)
        return QStringLiteral("%1: %2 GiB, %3 TFLOP/s")
            .arg(QString::fromStdString(r.gpu.display.empty() ? r.gpu.name : r.gpu.display))
            .arg(r.gpu.memoryGiB)
            .arg(r.gpu.fp16TFlops);
    if (role == Qt::TextAlignmentRole && index.column() != Gpu)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool ProvisionPoolModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::CheckStateRole && index.column() == Gpu) {
        r.used = value.toInt() == Qt::Checked;
        if (r.used && r.quota == 0)
            r.quota = 8;
    } else if (role == Qt::EditRole && index.column() == Quota) {
        bool ok = false;
        const int q = value.toInt(&ok);
        if (!ok || q < 0 || q > 100000)
            return false; // a quota is a GPU count
        r.quota = q;
        r.used = q > 0;
    } else if (role == Qt::EditRole && index.column() == Price) {
        bool ok = false;
        const double p = value.toDouble(&ok);
        if (!ok || p < 0)
            return false;
        r.price = p;
    } else {
        return false;
    }
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    emit poolChanged();
    return true;
}

Qt::ItemFlags ProvisionPoolModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == Gpu)
        f |= Qt::ItemIsUserCheckable;
    else
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant ProvisionPoolModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
        return {};
    switch (section) {
    case Gpu:
        return tr("GPU type");
    case Quota:
        return tr("Quota");
    case Price:
        return tr("$/GPU-h");
    default:
        return {};
    }
}

} // namespace orrery::gui
