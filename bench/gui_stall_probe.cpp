// Event-loop stall probe (issue 9, "the GUI thread never blocks"): a
// 20,000-job simulation runs through the GUI's JobRunner while the Gantt,
// holding 100,000 intervals, is zoomed in and out every 16 ms (a wheel held
// down). A 5 ms QTimer measures the gaps between its ticks; a gap minus the
// interval is a stall. Prints max / p99 / p50 stall and the paint times.
//
//   QT_QPA_PLATFORM=offscreen build/bench/gui_stall_probe [jobs] [intervals] [seconds]
#include "async/job_runner.h"
#include "results/run_entry.h"
#include "runs/simulate_function.h"
#include "timeline/gantt_view.h"

#include "../tests/support/synthetic_run.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

using namespace orrery;
using namespace orrery::gui;

namespace {

io::Scenario bigScenario(int jobs)
{
    io::Scenario s = io::defaultScenario();
    s.name = "stall probe";
    s.workload.jobs.clear();
    s.workload.trace.reset();
    s.workload.generator.reset();
    const int demand[] = {1, 1, 2, 4, 8, 1, 2};
    for (int i = 0; i < jobs; ++i) {
        workload::Job j;
        j.id = "p" + std::to_string(i);
        j.kind = workload::JobKind::Fixed;
        j.arrivalS = 200.0 * i; // about the cluster's capacity: the queue neither empties nor explodes
        j.user = "u" + std::to_string(i % 8);
        j.gpus = demand[i % 7];
        j.durationS = 1800 + 600.0 * (i % 9);
        j.model = i % 2 ? "resnet-50" : "transformer";
        s.workload.jobs.push_back(j);
    }
    return s;
}

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(
        std::min<double>(static_cast<double>(v.size()) - 1, std::ceil(q * static_cast<double>(v.size())) - 1))];
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const int jobs = argc > 1 ? std::atoi(argv[1]) : 20000;
    const int wantIntervals = argc > 2 ? std::atoi(argv[2]) : 100000;
    const int durationS = argc > 3 ? std::atoi(argv[3]) : 15;

    const io::Scenario scenario = bigScenario(jobs);
    // The Gantt's run: synthetic, sized to the requested interval count.
    int syntheticJobs = wantIntervals / 3;
    auto run = test::syntheticRun(scenario.cluster, syntheticJobs, 3);
    while (static_cast<int>(run->intervals.size()) < wantIntervals) {
        syntheticJobs = syntheticJobs * 11 / 10 + 1;
        run = test::syntheticRun(scenario.cluster, syntheticJobs, 3);
    }
    RunEntry entry;
    entry.id = 1;
    entry.name = QStringLiteral("synthetic");
    entry.result = run;
    entry.cluster = std::make_shared<const hardware::Cluster>(scenario.cluster);

    GanttView gantt;
    gantt.resize(1400, 800);
    gantt.show();
    gantt.setRun(&entry);
    gantt.zoomToFit();

    // The background work: the 20,000-job simulation, started again each time it ends, so that a
    // simulation is running during the whole measurement (one takes well under the probe's duration).
    JobRunner runner;
    const SimulateFunction simulate = coreSimulateFunction();
    const char* policies[] = {"fifo", "sjf", "tiresias"};
    int simulations = 0;
    double simBusyS = 0;
    QString outcome;
    bool stopping = false;
    QElapsedTimer simClock;
    std::function<void()> startSimulation = [&] {
        const std::string policy = policies[simulations % 3];
        simClock.start();
        runner.start<sim::RunResult>(
            QStringLiteral("sim"),
            [simulate, scenario, policy](TaskContext& ctx) { return simulate(scenario, policy, ctx, {}); }, &app,
            [&](sim::RunResult r) {
                ++simulations;
                simBusyS += simClock.elapsed() / 1000.0;
                outcome = QStringLiteral("%1 jobs, %2 finished (%3)")
                              .arg(r.jobs.size())
                              .arg(std::count_if(r.jobs.begin(), r.jobs.end(),
                                                 [](const sim::JobRecord& j) { return j.finished(); }))
                              .arg(QString::fromStdString(r.policy));
                if (!stopping)
                    startSimulation();
            },
            [&](const QString& e) { outcome = QStringLiteral("simulation failed: ") + e; });
    };
    startSimulation();

    // The probe.
    constexpr int kTickMs = 5;
    std::vector<double> stalls;
    QElapsedTimer probeClock;
    probeClock.start();
    qint64 lastNs = probeClock.nsecsElapsed();
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 now = probeClock.nsecsElapsed();
        stalls.push_back(std::max(0.0, (now - lastNs) / 1e6 - kTickMs));
        lastNs = now;
    });
    probe.start(kTickMs);

    // The user: zoom in 30 steps at the centre, out 30 steps, repeat; paint each step at once.
    std::vector<double> paintMs;
    int step = 0;
    QTimer zoom;
    QObject::connect(&zoom, &QTimer::timeout, [&] {
        const double factor = (step / 30) % 2 == 0 ? 1.15 : 1 / 1.15;
        gantt.zoomAt(gantt.viewport()->width() * (0.3 + 0.4 * ((step * 7) % 10) / 10.0), factor);
        QElapsedTimer t;
        t.start();
        gantt.viewport()->repaint();
        paintMs.push_back(t.nsecsElapsed() / 1e6);
        ++step;
    });
    zoom.start(16);

    QTimer::singleShot(durationS * 1000, &app, [&] {
        stopping = true;
        app.quit();
    });
    app.exec();
    runner.cancelAll();
    runner.waitForDone();

    std::printf("gantt intervals: %zu (synthetic run, %d GPUs)\n", run->intervals.size(), run->totalGpus);
    std::printf("measured for %d s; simulations finished meanwhile: %d (last: %s), mean %.2f s each\n", durationS,
                simulations, qPrintable(outcome), simulations ? simBusyS / simulations : 0.0);
    std::printf("zoom steps: %zu, paint ms: p50 %.2f  p99 %.2f  max %.2f\n", paintMs.size(), percentile(paintMs, 0.5),
                percentile(paintMs, 0.99), percentile(paintMs, 1.0));
    std::printf("probe ticks: %zu (every %d ms), stall ms: p50 %.2f  p99 %.2f  max %.2f\n", stalls.size(), kTickMs,
                percentile(stalls, 0.5), percentile(stalls, 0.99), percentile(stalls, 1.0));
    return 0;
}
