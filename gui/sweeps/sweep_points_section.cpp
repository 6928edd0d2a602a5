#include "sweeps/sweep_points_section.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace orrery::gui {

namespace {

const QString kBase = QStringLiteral("(base)");

bool sameColumns(const std::vector<DraftAxis>& a, const std::vector<DraftAxis>& b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].labels != b[i].labels)
            return false;
    return true;
}

} // namespace

SweepPointsSection::SweepPointsSection(QWidget* parent) : QGroupBox(tr("Points"), parent)
{
    auto* ptl = new QVBoxLayout(this);
    auto* modeRow = new QHBoxLayout;
    m_grid = new QRadioButton(tr("Full grid (every combination of the values)"));
    m_explicit = new QRadioButton(tr("Explicit points"));
    m_grid->setChecked(true);
    auto* modes = new QButtonGroup(this);
    modes->addButton(m_grid);
    modes->addButton(m_explicit);
    modeRow->addWidget(m_grid);
    modeRow->addWidget(m_explicit);
    modeRow->addStretch();
    ptl->addLayout(modeRow);
    m_points = new QTableWidget;
    m_points->verticalHeader()->setDefaultSectionSize(m_points->verticalHeader()->defaultSectionSize() + 4);
    m_points->setMinimumHeight(110);
    m_points->setToolTip(tr("One point per row: each axis takes one of its values, or (base): the base "
                            "scenario's value stands"));
    ptl->addWidget(m_points);
    auto* pointButtons = new QHBoxLayout;
    m_addPoint = new QPushButton(tr("Add Point"));
    m_removePoint = new QPushButton(tr("Remove Point"));
    m_fillPoints = new QPushButton(tr("Fill from Grid"));
    pointButtons->addWidget(m_addPoint);
    pointButtons->addWidget(m_removePoint);
    pointButtons->addWidget(m_fillPoints);
    pointButtons->addStretch();
    ptl->addLayout(pointButtons);

    const auto enable = [this](bool on) {
        for (QWidget* w : std::initializer_list<QWidget*>{m_points, m_addPoint, m_removePoint, m_fillPoints})
            w->setEnabled(on);
    };
    enable(false);
    connect(m_explicit, &QRadioButton::toggled, this, [this, enable](bool on) {
        enable(on);
        emit explicitToggled(on);
    });
    connect(m_addPoint, &QPushButton::clicked, this, &SweepPointsSection::addRequested);
    connect(m_fillPoints, &QPushButton::clicked, this, &SweepPointsSection::fillRequested);
    connect(m_removePoint, &QPushButton::clicked, this, [this] {
        const int row = m_points->currentRow();
        m_points->removeRow(row >= 0 ? row : m_points->rowCount() - 1);
        emit changed();
    });
}

bool SweepPointsSection::isExplicit() const
{
    return m_explicit->isChecked();
}

void SweepPointsSection::setExplicit(bool on)
{
    (on ? m_explicit : m_grid)->setChecked(true); // exclusive: checking one unchecks the other
}

void SweepPointsSection::setPointCombo(int row, int column, const DraftAxis& axis, const std::string& label)
{
    auto* box = new QComboBox;
    box->addItem(kBase);
    for (const auto& l : axis.labels)
        box->addItem(QString::fromStdString(l));
    const int at = box->findText(QString::fromStdString(label));
    box->setCurrentIndex(at > 0 ? at : 0);
    connect(box, &QComboBox::currentIndexChanged, this, &SweepPointsSection::changed);
    m_points->setCellWidget(row, column, box);
}

std::map<std::string, std::string> SweepPointsSection::rowPoint(int row) const
{
    std::map<std::string, std::string> point;
    for (int c = 0; c < m_points->columnCount() && c < static_cast<int>(m_axes.size()); ++c)
        if (const auto* box = qobject_cast<QComboBox*>(m_points->cellWidget(row, c)); box && box->currentIndex() > 0)
            point[m_axes[std::size_t(c)].name] = box->currentText().toStdString();
    return point;
}

void SweepPointsSection::syncColumns(const std::vector<DraftAxis>& axes)
{
    if (sameColumns(axes, m_axes) && m_points->columnCount() == static_cast<int>(axes.size()))
        return;
    std::vector<std::map<std::string, std::string>> rows;
    for (int row = 0; row < m_points->rowCount(); ++row)
        rows.push_back(rowPoint(row));
    m_axes = axes;
    m_points->setRowCount(0);
    m_points->clear();
    m_points->setColumnCount(static_cast<int>(axes.size()));
    QStringList headers;
    for (const auto& a : axes)
        headers << QString::fromStdString(a.name);
    m_points->setHorizontalHeaderLabels(headers);
    m_points->setRowCount(static_cast<int>(rows.size()));
    for (int row = 0; row < static_cast<int>(rows.size()); ++row)
        for (std::size_t c = 0; c < axes.size(); ++c) {
            const auto it = rows[std::size_t(row)].find(axes[c].name);
            setPointCombo(row, static_cast<int>(c), axes[c], it == rows[std::size_t(row)].end() ? "" : it->second);
        }
    m_points->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void SweepPointsSection::appendPoint(const std::map<std::string, std::string>& point)
{
    const int row = m_points->rowCount();
    m_points->insertRow(row);
    for (std::size_t c = 0; c < m_axes.size(); ++c) {
        const auto it = point.find(m_axes[c].name);
        setPointCombo(row, static_cast<int>(c), m_axes[c], it == point.end() ? "" : it->second);
    }
    emit changed();
}

bool SweepPointsSection::fillFromGrid(const std::vector<DraftAxis>& axes, QString* error)
{
    std::size_t total = 1;
    for (const auto& a : axes)
        total *= a.labels.size();
    if (total > kMaxListedPoints) {
        if (error)
            *error = tr("The grid has %1 points: too many to list one by one (at most 1,000); use the full grid.")
                         .arg(total);
        return false;
    }
    m_points->setRowCount(0);
    syncColumns(axes);
    std::vector<std::size_t> digit(axes.size(), 0);
    for (std::size_t n = 0; n < total; ++n) {
        const int row = m_points->rowCount();
        m_points->insertRow(row);
        for (std::size_t c = 0; c < axes.size(); ++c)
            setPointCombo(row, static_cast<int>(c), axes[c], axes[c].labels[digit[c]]);
        for (std::size_t i = axes.size(); i-- > 0;) {
            if (++digit[i] < axes[i].labels.size())
                break;
            digit[i] = 0;
        }
    }
    emit changed();
    return true;
}

void SweepPointsSection::writeTo(SweepDraft& draft) const
{
    draft.explicitPoints = isExplicit();
    draft.points.clear();
    if (draft.explicitPoints)
        for (int row = 0; row < m_points->rowCount(); ++row)
            draft.points.push_back(rowPoint(row));
}

} // namespace orrery::gui
