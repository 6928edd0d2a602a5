#include "runs/store_browser.h"

#include "async/job_runner.h"
#include "io/scenario.h"
#include "models/stored_run_model.h"
#include "results/run_library.h"
#include "runs/placement_scores.h"
#include "runs/run_saver.h"
#include "store/run_store.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace orrery::gui {

StoreBrowser::StoreBrowser(RunLibrary* runs, JobRunner* runner, QString databasePath, QWidget* parent)
    : QWidget(parent), m_runs(runs), m_runner(runner), m_path(std::move(databasePath)),
      m_model(new StoredRunModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortRole(StoredRunModel::SortRole);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_pathLabel = new QLabel;
    m_pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pathLabel->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    layout->addWidget(m_pathLabel);

    auto* filters = new QGridLayout;
    m_scenario = new QLineEdit;
    m_scenario->setPlaceholderText(tr("scenario name or hash prefix"));
    m_policy = new QLineEdit;
    m_policy->setPlaceholderText(tr("policy"));
    m_status = new QComboBox;
    m_status->addItem(tr("any status"), -1);
    for (auto s : {store::RunStatus::Completed, store::RunStatus::Cancelled, store::RunStatus::Failed,
                   store::RunStatus::Running})
        m_status->addItem(QString::fromLatin1(store::toString(s)), static_cast<int>(s));
    m_text = new QLineEdit;
    m_text->setPlaceholderText(tr("filter the list"));
    m_text->setClearButtonEnabled(true);
    filters->addWidget(m_scenario, 0, 0);
    filters->addWidget(m_policy, 0, 1);
    filters->addWidget(m_status, 0, 2);
    filters->addWidget(m_text, 1, 0, 1, 3);
    layout->addLayout(filters);

    m_view = new QTableView;
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(StoredRunModel::Id, Qt::DescendingOrder);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_view, 1);

    auto* buttons = new QHBoxLayout;
    auto* refresh = new QPushButton(tr("Refresh"));
    auto* load = new QPushButton(tr("Load / compare selected"));
    m_message = new QLabel;
    m_message->setWordWrap(true);
    buttons->addWidget(refresh);
    buttons->addWidget(load);
    buttons->addWidget(m_message, 1);
    layout->addLayout(buttons);

    connect(refresh, &QPushButton::clicked, this, &StoreBrowser::refresh);
    connect(load, &QPushButton::clicked, this, &StoreBrowser::loadSelected);
    connect(m_view, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { this->load({i.data(StoredRunModel::StoreIdRole).toLongLong()}); });
    connect(m_scenario, &QLineEdit::editingFinished, this, &StoreBrowser::refresh);
    connect(m_policy, &QLineEdit::editingFinished, this, &StoreBrowser::refresh);
    connect(m_status, &QComboBox::currentIndexChanged, this, &StoreBrowser::refresh);
    connect(m_text, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    setDatabasePath(m_path);
}

void StoreBrowser::setDatabasePath(const QString& path)
{
    m_path = path;
    m_pathLabel->setText(tr("Store: %1").arg(path));
    m_pathLabel->setToolTip(path);
    refresh();
}

void StoreBrowser::setPolicyFilter(const QString& policy)
{
    m_policy->setText(policy);
    refresh();
}

void StoreBrowser::setScenarioFilter(const QString& scenario)
{
    m_scenario->setText(scenario);
    refresh();
}

void StoreBrowser::refresh()
{
    store::RunFilter filter;
    filter.scenario = m_scenario->text().trimmed().toStdString();
    filter.policy = m_policy->text().trimmed().toStdString();
    if (const int s = m_status->currentData().toInt(); s >= 0)
        filter.status = static_cast<store::RunStatus>(s);
    const std::string path = m_path.toStdString();
    if (!QFileInfo::exists(m_path)) {
        m_model->setRecords({});
        m_message->setText(tr("No store yet: runs are saved here once they finish."));
        emit listed(0);
        return;
    }
    m_runner->start<std::vector<store::RunRecord>>(
        QStringLiteral("store-list"),
        [path, filter](TaskContext&) {
            std::lock_guard lock(RunSaver::storeMutex());
            return RunSaver::openForReading(path).listRuns(filter);
        },
        this,
        [this](std::vector<store::RunRecord> records) {
            const int n = static_cast<int>(records.size());
            m_model->setRecords(std::move(records));
            m_message->setText(tr("%1 runs").arg(n));
            m_message->setStyleSheet(QString());
            emit listed(n);
        },
        [this](const QString& error) {
            m_model->setRecords({});
            m_message->setText(error);
            m_message->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; }"));
            emit failed(error);
        });
}

void StoreBrowser::loadSelected()
{
    QVector<qint64> ids;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows())
        ids.push_back(i.data(StoredRunModel::StoreIdRole).toLongLong());
    std::sort(ids.begin(), ids.end());
    if (ids.isEmpty()) {
        m_message->setText(tr("Select one run to view, or several to compare."));
        return;
    }
    load(ids);
}

void StoreBrowser::load(const QVector<qint64>& storeIds)
{
    // Already loaded runs are reused, not duplicated; ids repeat across stores, so a run is known by both.
    QVector<qint64> missing;
    for (qint64 id : storeIds)
        if (!m_runs->findStored(m_path, id))
            missing.push_back(id);
    const std::string path = m_path.toStdString();
    m_runner->start<std::vector<RunEntry>>(
        QStringLiteral("store-load"),
        [path, missing](TaskContext& ctx) {
            std::vector<RunEntry> out;
            std::vector<std::optional<io::Scenario>> scenarios; // per entry, for its placement scores
            {
                std::lock_guard lock(RunSaver::storeMutex());
                store::RunStore db = RunSaver::openForReading(path);
                for (qint64 id : missing) {
                    if (ctx.isCancelled())
                        break;
                    store::StoredRun stored = db.loadRun(id);
                    RunEntry e;
                    e.storeId = id;
                    e.storePath = QString::fromStdString(path);
                    e.scenarioName = QString::fromStdString(stored.record.scenarioName);
                    e.name = QStringLiteral("%1 #s%2").arg(QString::fromStdString(stored.record.policy)).arg(id);
                    e.finishedAt = QDateTime::fromString(QString::fromStdString(stored.record.finishedAt), Qt::ISODate);
                    auto json = std::make_shared<std::string>(db.scenarioJson(stored.record.scenarioId));
                    try {
                        // The scenario as run gives the Gantt its nodes and the charts their prices.
                        auto scenario = io::parseScenarioText(*json, "run " + std::to_string(id));
                        e.cluster = std::make_shared<const hardware::Cluster>(scenario.cluster);
                        scenarios.emplace_back(std::move(scenario));
                    } catch (const std::exception&) {
                        e.cluster.reset(); // views fall back to the stored GPU count
                        scenarios.emplace_back();
                    }
                    e.scenarioJson = std::move(json);
                    e.result = std::make_shared<const sim::RunResult>(std::move(stored.result));
                    out.push_back(std::move(e));
                }
            }
            // Preparing a scenario again (a trace's expansion) needs no store: other workers may have it meanwhile.
            for (std::size_t i = 0; i < out.size() && !ctx.isCancelled(); ++i)
                if (scenarios[i])
                    out[i].placementScores = placementScoresOf(*scenarios[i], *out[i].result);
            return out;
        },
        this,
        [this, storeIds, pathQ = m_path](std::vector<RunEntry> entries) {
            for (auto& e : entries)
                m_runs->add(std::move(e));
            QVector<int> ids;
            for (qint64 sid : storeIds)
                if (const RunEntry* r = m_runs->findStored(pathQ, sid))
                    ids.push_back(r->id);
            if (!ids.isEmpty())
                m_runs->setCurrent(ids.back());
            if (ids.size() >= 2)
                m_runs->setCompared(ids);
            m_message->setText(tr("Loaded %n run(s)", nullptr, static_cast<int>(ids.size())));
            m_message->setStyleSheet(QString());
            emit loaded(ids);
        },
        [this](const QString& error) {
            m_message->setText(error);
            m_message->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; }"));
            emit failed(error);
        });
}

} // namespace orrery::gui
