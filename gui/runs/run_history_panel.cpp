#include "runs/run_history_panel.h"

#include "models/run_list_model.h"
#include "results/run_library.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace orrery::gui {

RunHistoryPanel::RunHistoryPanel(RunLibrary* runs, QWidget* parent)
    : QWidget(parent), m_runs(runs), m_model(new RunListModel(runs, this)), m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter runs (policy, name, scenario)"));
    m_filter->setClearButtonEnabled(true);
    auto* compare = new QPushButton(tr("Compare selected"));
    top->addWidget(m_filter, 1);
    top->addWidget(compare);
    layout->addLayout(top);
    m_view = new QTableView;
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSortingEnabled(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_view);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunHistoryPanel::selectionChanged);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    m_runs->setCurrent(current.data(RunListModel::RunIdRole).toInt());
            });
    connect(compare, &QPushButton::clicked, this, &RunHistoryPanel::compareRequested);
}

void RunHistoryPanel::setFilter(const QString& text)
{
    m_filter->setText(text);
}

void RunHistoryPanel::selectAll()
{
    m_view->selectAll();
}

void RunHistoryPanel::selectionChanged()
{
    QVector<int> ids;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows())
        ids.push_back(i.data(RunListModel::RunIdRole).toInt());
    std::sort(ids.begin(), ids.end());
    m_runs->setCompared(ids);
}

} // namespace orrery::gui
