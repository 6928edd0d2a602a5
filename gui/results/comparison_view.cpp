#include "results/comparison_view.h"

#include "charts/cdf_chart.h"
#include "charts/tradeoff_chart.h"
#include "models/metrics_table_model.h"
#include "results/run_library.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace orrery::gui {

ComparisonView::ComparisonView(RunLibrary* runs, QWidget* parent)
    : QWidget(parent), m_runs(runs), m_metrics(new MetricsTableModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_hint = new QLabel(tr("Select several runs in the Run history (Ctrl+click) to compare them here."));
    layout->addWidget(m_hint);
    auto* split = new QSplitter(Qt::Vertical);
    m_table = new QTableView;
    m_table->setModel(m_metrics);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setMaximumHeight(170);
    split->addWidget(m_table);
    auto* charts = new QSplitter(Qt::Horizontal);
    m_cdf = new CdfChart;
    m_tradeoff = new TradeoffChart;
    charts->addWidget(m_cdf);
    charts->addWidget(m_tradeoff);
    split->addWidget(charts);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    connect(runs, &RunLibrary::comparedChanged, this, &ComparisonView::refresh);
    refresh();
}

void ComparisonView::refresh()
{
    const auto runs = m_runs->comparedRuns();
    m_hint->setVisible(runs.size() < 2);
    m_metrics->setRuns(runs);
    m_cdf->setRuns(runs);
    m_tradeoff->setRuns(runs);
}

} // namespace orrery::gui
