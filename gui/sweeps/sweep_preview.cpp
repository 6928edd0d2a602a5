#include "sweeps/sweep_preview.h"

#include "async/job_runner.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_table.h"
#include "sweeps/sweep_run_controller.h"

#include <QThread>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace orrery::gui {

namespace {

/** "1 point", "18 points": the counts read as the CLI writes them (no translation catalogue resolves %n here). */
QString countOf(std::size_t n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

} // namespace

SweepPreview::SweepPreview(JobRunner* runner, QWidget* parent) : QLabel(parent), m_runner(runner)
{
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setMinimumHeight(48);
    setObjectName(QStringLiteral("SweepBuilderPreview"));
}

void SweepPreview::refresh()
{
    if (!m_error.isEmpty()) {
        setStyleSheet(QStringLiteral("QLabel { color: #c01c28; }"));
        setText(m_error);
        return;
    }
    setStyleSheet(QString());
    setText(m_estimateText.isEmpty() ? m_countText : m_countText + QLatin1Char('\n') + m_estimateText);
}

void SweepPreview::reset()
{
    ++m_generation;
    m_pointCount = -1;
    m_estimateS.reset();
    m_error.clear();
    m_countText.clear();
    m_estimateText.clear();
}

void SweepPreview::showError(const QString& error)
{
    m_error = error;
    refresh();
}

void SweepPreview::start(const sweep::SweepSpec& spec, std::optional<std::size_t> planned)
{
    const quint64 generation = m_generation;
    if (planned)
        m_countText =
            tr("%1; checking them against the base scenario...").arg(countOf(*planned, tr("point"), tr("points")));
    refresh();
    using PlanPtr = std::shared_ptr<const sweep::SweepPlan>;
    m_runner->start<PlanPtr>(
        QStringLiteral("sweep-builder-resolve"),
        [spec](TaskContext&) { return std::make_shared<const sweep::SweepPlan>(sweep::resolveSweep(spec)); }, this,
        [this, generation](PlanPtr plan) {
            if (generation != m_generation)
                return;
            m_pointCount = static_cast<int>(plan->points.size());
            m_countText = tr("%1 over %2 (%3).")
                              .arg(countOf(plan->points.size(), tr("point"), tr("points")),
                                   countOf(plan->scenarioCount, tr("scenario"), tr("scenarios")),
                                   countOf(plan->workloadCount, tr("prepared workload"), tr("prepared workloads")));
            m_estimateText = tr("Estimating the CPU time (a few points simulated)...");
            refresh();
            emit previewUpdated();
            using Estimate = std::pair<double, std::string>;
            m_runner->start<Estimate>(
                QStringLiteral("sweep-builder-estimate"),
                [plan](TaskContext& ctx) {
                    std::vector<std::size_t> all(plan->points.size());
                    for (std::size_t i = 0; i < all.size(); ++i)
                        all[i] = i;
                    sweep::WorkloadCache cache;
                    const auto e = sweep::estimateCpu(*plan, all, cache, 2.0, 8, ctx.stopToken());
                    return Estimate{e.cpuS, e.method};
                },
                this,
                [this, generation](Estimate e) {
                    if (generation != m_generation)
                        return;
                    m_estimateS = e.first;
                    const int threads = std::max(1, QThread::idealThreadCount());
                    m_estimateText = tr("Estimated CPU time: %1 (%2 s), about %3 wall on %4 threads; from %5.")
                                         .arg(clockText(e.first))
                                         .arg(e.first, 0, 'f', 1)
                                         .arg(clockText(e.first / threads))
                                         .arg(threads)
                                         .arg(QString::fromStdString(e.second));
                    refresh();
                    emit estimateUpdated();
                },
                [this, generation](const QString& error) {
                    if (generation != m_generation)
                        return;
                    m_estimateText = tr("No estimate: %1").arg(error);
                    refresh();
                    emit estimateUpdated();
                });
        },
        [this, generation](const QString& error) {
            if (generation != m_generation)
                return;
            m_error = error;
            refresh();
            emit previewUpdated();
        });
}

} // namespace orrery::gui
