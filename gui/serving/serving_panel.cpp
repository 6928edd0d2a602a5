#include "serving/serving_panel.h"

#include "async/job_runner.h"
#include "serve/maf_trace.h"
#include "serving/attainment_chart.h"
#include "serving/cluster_picture.h"
#include "serving/serving_cdf_chart.h"
#include "serving/serving_inputs.h"

#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <fmt/format.h>

namespace orrery::gui {

namespace {

/** The progress a worker gives to core: its fraction to the task, its stop token from the task. */
util::Progress progressOf(TaskContext& ctx, const std::string& what)
{
    util::Progress p;
    p.stop = ctx.stopToken();
    p.report = [&ctx, what](double f) { ctx.reportProgress(f, fmt::format("{}: {:.0f}%", what, 100 * f)); };
    return p;
}

} // namespace

ServingPanel::ServingPanel(JobRunner* runner, QString databasePath, QWidget* parent)
    : QWidget(parent), m_runner(runner), m_path(std::move(databasePath))
{
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    auto* split = new QSplitter(Qt::Horizontal);
    outer->addWidget(split);
    split->addWidget(buildControls());
    split->addWidget(buildViews());
    split->setStretchFactor(1, 1);
    connectControls();
    refreshStored();
}

QWidget* ServingPanel::buildControls()
{
    auto* left = new QWidget;
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 4, 0);
    m_inputs = new ServingInputs;
    ll->addWidget(m_inputs);
    auto* run = new QHBoxLayout;
    m_place = new QPushButton(tr("Place"));
    m_place->setToolTip(tr("Run the method on these models and traffic: groups, parallel configurations, replicas"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    run->addWidget(m_place);
    run->addWidget(m_cancel);
    ll->addLayout(run);
    auto* curves = new QGroupBox(tr("Attainment curves (all three methods)"));
    auto* cl = new QFormLayout(curves);
    m_axis = new QComboBox;
    m_axis->addItem(tr("Total rate (req/s)"), static_cast<int>(serve::CurveAxis::Rate));
    m_axis->addItem(tr("CV"), static_cast<int>(serve::CurveAxis::Cv));
    m_axis->addItem(tr("SLO scale"), static_cast<int>(serve::CurveAxis::SloScale));
    m_values = new QLineEdit;
    m_values->setToolTip(tr("The values of the axis, separated by commas: one placement search per value and method"));
    m_curvesButton = new QPushButton(tr("Curves"));
    cl->addRow(tr("Along"), m_axis);
    cl->addRow(tr("Values"), m_values);
    cl->addRow(m_curvesButton);
    ll->addWidget(curves);
    m_bar = new QProgressBar;
    m_bar->setRange(0, 1000);
    m_bar->setTextVisible(false);
    ll->addWidget(m_bar);
    m_message = new QLabel;
    m_message->setWordWrap(true);
    ll->addWidget(m_message);
    auto* stored = new QGroupBox(tr("Stored serving runs"));
    auto* sl = new QVBoxLayout(stored);
    m_stored = new QListWidget;
    m_stored->setMinimumHeight(80);
    sl->addWidget(m_stored);
    auto* storeButtons = new QHBoxLayout;
    m_save = new QPushButton(tr("Save to database"));
    m_save->setEnabled(false);
    m_load = new QPushButton(tr("Load"));
    m_export = new QToolButton;
    m_export->setText(tr("Export CSV"));
    m_export->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_export);
    menu->addAction(tr("Run summary..."), this, [this] { exportCsvInteractive(ServingCsv::Run); });
    menu->addAction(tr("Placement (groups)..."), this, [this] { exportCsvInteractive(ServingCsv::Groups); });
    menu->addAction(tr("Per-model attainment..."), this, [this] { exportCsvInteractive(ServingCsv::Models); });
    menu->addAction(tr("Latency CDF..."), this, [this] { exportCsvInteractive(ServingCsv::Cdf); });
    menu->addAction(tr("Attainment curves..."), this, [this] { exportCsvInteractive(ServingCsv::Curves); });
    m_export->setMenu(menu);
    storeButtons->addWidget(m_save);
    storeButtons->addWidget(m_load);
    storeButtons->addWidget(m_export);
    storeButtons->addStretch();
    sl->addLayout(storeButtons);
    ll->addWidget(stored);
    auto* scroll = new QScrollArea;
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(360);
    return scroll;
}

QWidget* ServingPanel::buildViews()
{
    auto* right = new QWidget;
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(4, 0, 0, 0);
    m_summary = new QLabel(tr("No placement yet."));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rl->addWidget(m_summary);
    m_views = new QTabWidget;
    auto* clusterPage = new QWidget;
    auto* cpl = new QVBoxLayout(clusterPage);
    cpl->setContentsMargins(0, 0, 0, 0);
    auto* segmentBar = new QHBoxLayout;
    segmentBar->addWidget(new QLabel(tr("Clockwork++ re-placement")));
    m_segment = new QSpinBox;
    segmentBar->addWidget(m_segment);
    segmentBar->addStretch();
    auto* segmentRow = new QWidget;
    segmentRow->setLayout(segmentBar);
    segmentRow->setObjectName(QStringLiteral("SegmentRow"));
    segmentRow->hide();
    cpl->addWidget(segmentRow);
    m_picture = new ClusterPicture;
    cpl->addWidget(m_picture, 1);
    m_views->addTab(clusterPage, tr("Cluster"));
    m_chart = new AttainmentChart;
    m_views->addTab(m_chart, tr("Attainment curves"));
    m_cdf = new ServingCdfChart;
    m_views->addTab(m_cdf, tr("Latency CDF"));
    rl->addWidget(m_views, 1);
    return right;
}

void ServingPanel::connectControls()
{
    setDefaultValues();
    connect(m_axis, &QComboBox::currentIndexChanged, this, &ServingPanel::setDefaultValues);
    connect(m_inputs, &ServingInputs::trafficSourceChanged, this, [this] {
        updateAxisTitles();
        setDefaultValues();
    });
    connect(m_inputs, &ServingInputs::traceChosen, this, &ServingPanel::readTrace);
    connect(m_place, &QPushButton::clicked, this, &ServingPanel::place);
    connect(m_curvesButton, &QPushButton::clicked, this, &ServingPanel::computeCurves);
    connect(m_cancel, &QPushButton::clicked, this, &ServingPanel::cancel);
    connect(m_save, &QPushButton::clicked, this, &ServingPanel::saveToDatabase);
    connect(m_load, &QPushButton::clicked, this, [this] {
        if (auto* item = m_stored->currentItem())
            loadStored(item->data(Qt::UserRole).toLongLong());
    });
    connect(m_stored, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem* item) { loadStored(item->data(Qt::UserRole).toLongLong()); });
    connect(m_segment, &QSpinBox::valueChanged, this, &ServingPanel::showSegment);
    connect(m_runner, &JobRunner::taskProgress, this, [this](JobRunner::TaskId id, double f, double, const QString& t) {
        if (id != m_task)
            return;
        m_bar->setValue(static_cast<int>(1000 * f));
        if (!t.isEmpty())
            m_message->setText(t);
    });
    connect(m_runner, &JobRunner::taskCancelled, this, [this](JobRunner::TaskId id) {
        if (id != m_task)
            return;
        setBusy(false);
        showMessage(tr("Cancelled."));
        emit cancelled();
    });
}

QString ServingPanel::taskKey(const QString& what) const
{
    // Per panel: keys are latest-wins across a JobRunner, and two panels may share one (tests).
    return QStringLiteral("%1-%2").arg(what).arg(reinterpret_cast<quintptr>(this));
}

void ServingPanel::setDefaultValues()
{
    // With a trace, rate and CV are multiples of the trace's fitted values (the spec's rate and CV scales).
    const bool trace = m_inputs->usesTrace();
    switch (static_cast<serve::CurveAxis>(m_axis->currentData().toInt())) {
    case serve::CurveAxis::Rate:
        m_values->setText(trace ? QStringLiteral("0.5, 1, 2, 4") : QStringLiteral("10, 20, 40, 80"));
        break;
    case serve::CurveAxis::Cv:
        m_values->setText(trace ? QStringLiteral("0.5, 1, 2, 4") : QStringLiteral("1, 2, 4, 6"));
        break;
    case serve::CurveAxis::SloScale:
        m_values->setText(QStringLiteral("1, 2, 5, 10"));
        break;
    }
}

void ServingPanel::updateAxisTitles()
{
    const bool trace = m_inputs->usesTrace();
    m_axis->setItemText(m_axis->findData(static_cast<int>(serve::CurveAxis::Rate)),
                        trace ? tr("Rate scale (x the trace's rates)") : tr("Total rate (req/s)"));
    m_axis->setItemText(m_axis->findData(static_cast<int>(serve::CurveAxis::Cv)),
                        trace ? tr("CV scale (x the trace's CVs)") : tr("CV"));
}

bool ServingPanel::refuseInputs()
{
    const QString problem = m_inputs->problem();
    if (problem.isEmpty())
        return false;
    showMessage(problem, true);
    emit failed(problem);
    return true;
}

void ServingPanel::readTrace(const QString& path)
{
    struct TraceSize
    {
        int functions = 0, minutes = 0;
        double invocations = 0;
    };
    const std::string file = path.toStdString();
    m_inputs->setTraceInfo(tr("Reading %1...").arg(QFileInfo(path).fileName()), false);
    m_runner->start<TraceSize>(
        taskKey(QStringLiteral("serving-trace")),
        [file](TaskContext&) {
            const serve::MafTrace trace = serve::readMafTrace(file);
            TraceSize size{static_cast<int>(trace.functions.size()), trace.minutes, 0};
            for (const auto& counts : trace.counts)
                for (double c : counts)
                    size.invocations += c;
            return size;
        },
        this,
        [this](TraceSize size) {
            m_inputs->setTraceInfo(tr("%1 function(s), %2 minute(s), %3 invocation(s): %4 req/s on average before "
                                      "scaling")
                                       .arg(size.functions)
                                       .arg(size.minutes)
                                       .arg(QLocale().toString(size.invocations, 'f', 0))
                                       .arg(size.invocations / (60.0 * size.minutes), 0, 'g', 3),
                                   false);
            emit traceRead(true);
        },
        [this](const QString& error) {
            m_inputs->setTraceInfo(error, true);
            emit traceRead(false);
        });
}

void ServingPanel::setDatabasePath(const QString& path)
{
    m_path = path;
    m_showLatestStored = true;
    refreshStored();
}

std::vector<double> ServingPanel::curveValueList(QString* error) const
{
    std::vector<double> values;
    for (const QString& part : m_values->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const double v = part.trimmed().toDouble(&ok);
        if (!ok || !(v >= 0)) {
            if (error)
                *error = tr("Values: \"%1\" is not a non-negative number").arg(part.trimmed());
            return {};
        }
        values.push_back(v);
    }
    if (values.empty() && error)
        *error = tr("Values: give at least one value");
    return values;
}

void ServingPanel::setBusy(bool busy, const QString& what)
{
    if (!busy)
        m_task = 0;
    m_place->setEnabled(!busy);
    m_curvesButton->setEnabled(!busy);
    m_cancel->setEnabled(busy);
    m_save->setEnabled(!busy && m_run && m_run->id == 0);
    m_bar->setValue(0);
    if (busy)
        showMessage(what);
}

void ServingPanel::showMessage(const QString& text, bool error)
{
    m_message->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; }") : QString());
    m_message->setText(text);
}

void ServingPanel::place()
{
    if (isBusy() || refuseInputs())
        return;
    const serve::ServingSpec spec = m_inputs->spec();
    const std::string title = serve::methodTitle(spec.method);
    m_task = m_runner->start<serve::ServingRun>(
        taskKey(QStringLiteral("serving")),
        [spec, title](TaskContext& ctx) {
            const util::Progress progress = progressOf(ctx, "searching (" + title + ")");
            return serve::runServing(spec, &progress);
        },
        this,
        [this](serve::ServingRun run) {
            setBusy(false);
            showRun(std::move(run));
            showMessage(tr("Placed."));
            emit placed();
        },
        [this](const QString& error) {
            setBusy(false);
            showMessage(error, true);
            emit failed(error);
        });
    setBusy(true, tr("Searching a placement (%1)...").arg(QString::fromStdString(title)));
}

void ServingPanel::computeCurves()
{
    if (isBusy() || refuseInputs())
        return;
    QString error;
    const std::vector<double> values = curveValueList(&error);
    if (values.empty()) {
        showMessage(error, true);
        emit failed(error);
        return;
    }
    const serve::ServingSpec spec = m_inputs->spec();
    const auto axis = static_cast<serve::CurveAxis>(m_axis->currentData().toInt());
    const std::vector<std::string> methods = serve::placementMethods();
    m_task = m_runner->start<serve::AttainmentCurves>(
        taskKey(QStringLiteral("serving")),
        [spec, axis, values, methods](TaskContext& ctx) {
            const util::Progress progress = progressOf(ctx, fmt::format("{} points", values.size() * methods.size()));
            return serve::attainmentCurves(spec, axis, values, methods, &progress);
        },
        this,
        [this](serve::AttainmentCurves curves) {
            setBusy(false);
            m_chart->setCurves(curves);
            m_curves = std::move(curves);
            m_views->setCurrentWidget(m_chart);
            showMessage(tr("Curves computed."));
            emit curvesReady();
        },
        [this](const QString& error) {
            setBusy(false);
            showMessage(error, true);
            emit failed(error);
        });
    setBusy(true, tr("Computing %n placement(s)...", nullptr, static_cast<int>(values.size() * methods.size())));
}

void ServingPanel::cancel()
{
    if (m_task)
        m_runner->cancel(m_task);
}

void ServingPanel::showRun(serve::ServingRun run)
{
    m_run = std::move(run);
    ++m_shown;
    const auto& r = *m_run;
    int replicas = 0;
    for (const auto& g : r.segmentGroups(0))
        replicas += static_cast<int>(g.models.size());
    QString text =
        tr("<b>%1</b> on %2 x %3: %4 group(s), %5 replica(s)%6; <b>SLO attainment %7%</b> (%8 of %9 requests); "
           "latency p50 %10 s, p99 %11 s; search %12 s, %13 simulations.")
            .arg(QString::fromStdString(serve::methodTitle(r.spec.method)))
            .arg(r.spec.gpus)
            .arg(QString::fromStdString(r.spec.gpu))
            .arg(r.segmentGroups(0).size())
            .arg(replicas)
            .arg(r.segments > 1 ? tr(" in the first of %1 re-placements").arg(r.segments) : QString())
            .arg(100 * r.attainment(), 0, 'f', 2)
            .arg(r.served)
            .arg(r.requests)
            .arg(r.latency.p50S, 0, 'f', 3)
            .arg(r.latency.p99S, 0, 'f', 3)
            .arg(r.searchS, 0, 'f', 2)
            .arg(r.simulations);
    if (r.spec.usesTrace())
        text += QLatin1Char(' ') + tr("Traffic: trace %1 (%2-min windows, rates x%3, CVs x%4).")
                                       .arg(QFileInfo(QString::fromStdString(r.spec.trace)).fileName())
                                       .arg(r.spec.windowMin)
                                       .arg(r.spec.rateScale)
                                       .arg(r.spec.cvScale);
    else
        text += QLatin1Char(' ') +
                tr("Traffic: Gamma, %1 req/s, CV %2, %3 s.").arg(r.spec.ratePerS).arg(r.spec.cv).arg(r.spec.durationS);
    if (r.id > 0)
        text +=
            QLatin1Char(' ') + tr("Stored as serving run %1 (%2).").arg(r.id).arg(QString::fromStdString(r.createdAt));
    m_summary->setText(text);
    m_segment->blockSignals(true);
    m_segment->setRange(0, std::max(0, r.segments - 1));
    m_segment->setValue(0);
    m_segment->blockSignals(false);
    if (auto* row = findChild<QWidget*>(QStringLiteral("SegmentRow")))
        row->setVisible(r.segments > 1);
    showSegment(0);
    m_cdf->setRun(r);
    m_save->setEnabled(!isBusy() && r.id == 0);
}

void ServingPanel::showSegment(int segment)
{
    if (m_run)
        m_picture->setGroups(m_run->segmentGroups(segment), m_run->spec.gpus);
}

} // namespace orrery::gui
