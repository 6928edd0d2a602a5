#include "results/cluster_at_time_view.h"

#include "results/auction_step_view.h"
#include "results/palette.h"
#include "results/wait_reason_text.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

ClusterGridWidget::ClusterGridWidget(QWidget* parent) : QWidget(parent)
{
    setMinimumSize(300, 200);
}

void ClusterGridWidget::setData(const RunEntry* run, const ClusterSnapshot* snapshot)
{
    m_run = run;
    m_snapshot = snapshot;
    QWidget::update();
}

void ClusterGridWidget::setHighlighted(std::vector<int> gpus)
{
    m_highlighted.clear();
    for (int g : gpus) {
        if (g < 0)
            continue;
        if (static_cast<std::size_t>(g) >= m_highlighted.size())
            m_highlighted.resize(static_cast<std::size_t>(g) + 1, 0);
        m_highlighted[static_cast<std::size_t>(g)] = 1;
    }
    QWidget::update();
}

void ClusterGridWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_run || !m_run->result || !m_snapshot || m_snapshot->jobOnGpu.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No run selected."));
        return;
    }
    // Nodes from the cluster, or one pseudo-node per 8 GPUs when the run's cluster is unknown.
    struct Box
    {
        QString name;
        QString type;
        int first;
        int count;
    };
    std::vector<Box> boxes;
    const int gpus = static_cast<int>(m_snapshot->jobOnGpu.size());
    if (m_run->cluster && m_run->cluster->totalGpus() == gpus) {
        for (const auto& n : m_run->cluster->nodes()) {
            const auto& t = m_run->cluster->gpuTypeOfNode(n.id);
            boxes.push_back({QString::fromStdString(n.name),
                             QString::fromStdString(t.display.empty() ? t.name : t.display), n.firstGpu, n.gpuCount});
        }
    } else {
        for (int g = 0; g < gpus; g += 8)
            boxes.push_back(
                {tr("GPUs %1-%2").arg(g).arg(std::min(gpus, g + 8) - 1), QString(), g, std::min(8, gpus - g)});
    }
    const int margin = 8;
    const int cols = std::max(1, (width() - margin) / 200);
    const int boxW = (width() - margin) / cols - margin;
    const int cellCols = 4;
    int maxCount = 1;
    for (const auto& b : boxes)
        maxCount = std::max(maxCount, b.count);
    const int cellRows = (maxCount + cellCols - 1) / cellCols;
    const int cell = std::clamp((boxW - 12) / cellCols, 14, 44);
    const int boxH = 34 + cellRows * cell + 6;
    const auto& run = *m_run->result;
    const QFontMetrics fm(font());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto& b = boxes[i];
        const int x = margin + static_cast<int>(i % static_cast<std::size_t>(cols)) * (boxW + margin);
        const int y = margin + static_cast<int>(i / static_cast<std::size_t>(cols)) * (boxH + margin);
        p.setPen(palette().color(QPalette::Mid));
        p.setBrush(palette().alternateBase());
        p.drawRoundedRect(x, y, boxW, boxH, 4, 4);
        p.setPen(palette().color(QPalette::WindowText));
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(QRect(x + 6, y + 2, boxW - 12, 16), Qt::AlignLeft | Qt::AlignVCenter, b.name);
        p.setFont(font());
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(x + 6, y + 17, boxW - 12, 14), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(b.type, Qt::ElideRight, boxW - 12));
        for (int k = 0; k < b.count; ++k) {
            const int job = m_snapshot->jobOnGpu[static_cast<std::size_t>(b.first + k)];
            const QRect r(x + 6 + (k % cellCols) * cell, y + 34 + (k / cellCols) * cell, cell - 3, cell - 3);
            const QColor c = job >= 0 ? colourForIndex(job) : palette().color(QPalette::Base);
            const auto gpu = static_cast<std::size_t>(b.first + k);
            const bool lit = gpu < m_highlighted.size() && m_highlighted[gpu];
            p.setPen(lit ? QPen(palette().color(QPalette::Highlight), 3) : QPen(palette().color(QPalette::Mid)));
            p.setBrush(c);
            p.drawRect(r);
            if (job >= 0 && cell >= 26) {
                p.setPen(textColourOn(c));
                QFont small = font();
                small.setPointSizeF(std::max(6.0, font().pointSizeF() - 2));
                p.setFont(small);
                p.drawText(
                    r, Qt::AlignCenter,
                    QFontMetrics(small).elidedText(QString::fromStdString(run.jobs[static_cast<std::size_t>(job)].id),
                                                   Qt::ElideRight, r.width() - 2));
                p.setFont(font());
            }
        }
    }
}

ClusterAtTimeView::ClusterAtTimeView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* controls = new QHBoxLayout;
    m_play = new QToolButton;
    m_play->setText(tr("Play"));
    m_play->setCheckable(true);
    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setRange(0, 1000);
    m_time = new QLabel;
    m_time->setMinimumWidth(220);
    controls->addWidget(m_play);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_time);
    layout->addLayout(controls);
    auto* split = new QSplitter(Qt::Horizontal);
    m_grid = new ClusterGridWidget;
    split->addWidget(m_grid);
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    m_queueTitle = new QLabel;
    m_queue = new QListWidget;
    // Reasons are sentences: wrap them rather than cut them at the panel's edge.
    m_queue->setWordWrap(true);
    m_queue->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_queue->setMinimumWidth(300);
    sideLayout->addWidget(m_queueTitle);
    // The queue over the auction of the moment (shown for Themis runs only).
    auto* sideSplit = new QSplitter(Qt::Vertical);
    sideSplit->addWidget(m_queue);
    m_auction = new AuctionStepView;
    sideSplit->addWidget(m_auction);
    sideSplit->setStretchFactor(0, 1);
    sideSplit->setStretchFactor(1, 2);
    sideLayout->addWidget(sideSplit);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    connect(m_auction, &AuctionStepView::auctionChosen, this, [this](double t) {
        showTime(t);
        emit timeChanged(t);
    });
    connect(m_queue, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { emit jobClicked(item->data(Qt::UserRole).toInt()); });
    m_timer = new QTimer(this);
    m_timer->setInterval(50);
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        setTime(m_endS * v / 1000.0);
        emit timeChanged(m_snapshot.timeS);
    });
    connect(m_play, &QToolButton::toggled, this, [this](bool on) {
        if (on && m_slider->value() >= m_slider->maximum())
            m_slider->setValue(0);
        on ? m_timer->start() : m_timer->stop();
        m_play->setText(on ? tr("Pause") : tr("Play"));
    });
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_slider->value() >= m_slider->maximum())
            m_play->setChecked(false);
        else
            m_slider->setValue(m_slider->value() + 2);
    });
    setRun(nullptr);
}

void ClusterAtTimeView::setRun(const RunEntry* run)
{
    m_run = run ? *run : RunEntry();
    m_index = TimelineIndex(m_run.result);
    m_reasons.reset();
    if (m_run.result)
        m_reasons.emplace(*m_run.result);
    m_endS = m_run.result ? std::max(m_run.result->makespanS, 1.0) : 1.0;
    m_auction->setRun(run);
    m_auction->setVisible(m_auction->hasAuctions());
    m_slider->setEnabled(m_run.result != nullptr);
    // Start where something is happening: a third of the way in.
    const int start = m_run.result ? 333 : 0;
    if (m_slider->value() == start) {
        setTime(m_endS * start / 1000.0);
        emit timeChanged(m_snapshot.timeS);
    } else {
        m_slider->setValue(start);
    }
}

void ClusterAtTimeView::setTime(double timeS)
{
    m_snapshot = ClusterSnapshot::at(m_index, timeS);
    update();
}

void ClusterAtTimeView::showTime(double timeS)
{
    const QSignalBlocker block(m_slider);
    m_slider->setValue(static_cast<int>(std::lround(std::clamp(timeS / m_endS, 0.0, 1.0) * 1000)));
    setTime(timeS);
}

void ClusterAtTimeView::update()
{
    m_grid->setData(m_run.result ? &m_run : nullptr, &m_snapshot);
    m_auction->showTime(m_snapshot.timeS);
    std::vector<int> leased;
    if (const auto* a = m_auction->shown())
        for (const auto& g : a->grants)
            leased.insert(leased.end(), g.gpus.begin(), g.gpus.end());
    m_grid->setHighlighted(std::move(leased));
    m_queue->clear();
    if (!m_run.result) {
        m_time->setText(tr("no run"));
        m_queueTitle->setText(tr("Queue"));
        return;
    }
    const auto& run = *m_run.result;
    m_time->setText(tr("t = %1 of %2, %3 of %4 GPUs busy")
                        .arg(formatDuration(m_snapshot.timeS), formatDuration(m_endS))
                        .arg(m_snapshot.busyGpus())
                        .arg(m_snapshot.jobOnGpu.size()));
    m_queueTitle->setText(
        tr("<b>Queue</b>: %1 waiting, %2 running").arg(m_snapshot.queued.size()).arg(m_snapshot.running.size()));
    const int shown = std::min<int>(static_cast<int>(m_snapshot.queued.size()), 500);
    for (int i = 0; i < shown; ++i) {
        const int index = m_snapshot.queued[static_cast<std::size_t>(i)];
        const auto& j = run.jobs[static_cast<std::size_t>(index)];
        const QString why = waitReasonText(run, *m_reasons, m_snapshot, index);
        auto* item = new QListWidgetItem(tr("%1  %2  (waiting %3)\n    %4")
                                             .arg(QString::fromStdString(j.id), QString::fromStdString(j.model),
                                                  formatDuration(m_snapshot.timeS - j.arrivalS), why));
        item->setToolTip(why);
        item->setData(Qt::UserRole, index);
        item->setData(Qt::DecorationRole, colourForIndex(m_snapshot.queued[static_cast<std::size_t>(i)]));
        m_queue->addItem(item);
    }
}

} // namespace orrery::gui
