#include "results/job_details.h"

#include "results/palette.h"

#include <QCoreApplication>

#include <algorithm>
#include <map>

namespace orrery::gui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("JobDetails", text);
}

QString typeMix(const std::vector<int>& gpus, const hardware::Cluster* cluster)
{
    if (!cluster)
        return QStringLiteral("%1 GPUs").arg(gpus.size());
    std::vector<std::pair<QString, int>> counts; // in order of first appearance
    for (int g : gpus) {
        const auto& t = cluster->gpuTypeOfGpu(g);
        const QString name = QString::fromStdString(t.display.empty() ? t.name : t.display);
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
        if (it == counts.end())
            counts.emplace_back(name, 1);
        else
            ++it->second;
    }
    QStringList parts;
    for (const auto& [name, n] : counts)
        parts << QStringLiteral("%1 x %2").arg(n).arg(name);
    return parts.join(QStringLiteral(" + "));
}

QString html(const QString& s)
{
    return s.toHtmlEscaped();
}

} // namespace

JobDetails jobDetails(const sim::RunResult& run, int job, const hardware::Cluster* cluster)
{
    JobDetails d;
    if (job < 0 || job >= static_cast<int>(run.jobs.size()))
        return d;
    d.index = job;
    d.record = run.jobs[static_cast<std::size_t>(job)];
    if (d.record.startS >= 0)
        d.waitS = d.record.startS - d.record.arrivalS;
    if (d.record.endS >= 0)
        d.jctS = d.record.endS - d.record.arrivalS;
    // Intervals are per GPU: those sharing start and end are one allocation.
    std::map<std::pair<double, double>, std::vector<int>> byStretch;
    for (const auto& iv : run.intervals)
        if (iv.job == job)
            byStretch[{iv.startS, iv.endS}].push_back(iv.gpu);
    const bool knowsGpus = cluster && cluster->totalGpus() >= run.totalGpus;
    for (auto& [stretch, gpus] : byStretch) {
        std::sort(gpus.begin(), gpus.end());
        JobAllocation a;
        a.startS = stretch.first;
        a.endS = stretch.second;
        a.gpus = gpus;
        if (knowsGpus) {
            for (int g : gpus) {
                const QString node =
                    QString::fromStdString(cluster->nodes()[static_cast<std::size_t>(cluster->nodeOfGpu(g))].name);
                if (!a.nodes.contains(node))
                    a.nodes << node;
            }
        }
        a.gpuTypes = typeMix(gpus, knowsGpus ? cluster : nullptr);
        a.samplesPerS = meanSamplesPerS(run, job, a.startS, a.endS);
        d.allocations.push_back(std::move(a));
    }
    for (const auto& e : run.jobEvents)
        if (e.job == job)
            d.events.push_back(e);
    return d;
}

int findJobById(const sim::RunResult& run, const QString& id)
{
    const std::string key = id.trimmed().toStdString();
    for (std::size_t i = 0; i < run.jobs.size(); ++i)
        if (run.jobs[i].id == key)
            return static_cast<int>(i);
    return -1;
}

double meanSamplesPerS(const sim::RunResult& run, int job, double fromS, double toS)
{
    if (!(toS > fromS))
        return 0;
    double samples = 0;
    for (const auto& s : run.rateSegments)
        if (s.job == job && s.samplesPerS > 0)
            samples += s.samplesPerS * std::max(0.0, std::min(toS, s.endS) - std::max(fromS, s.startS));
    return samples / (toS - fromS);
}

QString chosenBatch(const sim::RunResult& run, int job)
{
    if (job < 0 || job >= static_cast<int>(run.jobs.size()))
        return {};
    for (const auto& [k, v] : run.jobs[static_cast<std::size_t>(job)].extras)
        if (k == "batch")
            return QString::fromStdString(v);
    return {};
}

QString jobDetailsHtml(const JobDetails& d)
{
    if (d.index < 0)
        return tr("<p>Click a bar in the Gantt, or find a job by its id.</p>");
    const auto& r = d.record;
    QString out = QStringLiteral("<h3>%1</h3><table cellspacing='2'>").arg(html(QString::fromStdString(r.id)));
    const auto row = [&out](const QString& k, const QString& v) {
        out += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v);
    };
    row(tr("Model"), html(QString::fromStdString(r.model)));
    if (!r.user.empty())
        row(tr("User"), html(QString::fromStdString(r.user)));
    row(tr("GPUs asked"), QString::number(r.demand > 0 ? r.demand : r.gpus));
    row(tr("Arrival"), formatDuration(r.arrivalS));
    row(tr("First start"), r.startS >= 0 ? formatDuration(r.startS) : tr("never started"));
    if (d.waitS)
        row(tr("Waited"), formatDuration(*d.waitS));
    if (r.endS >= 0)
        row(tr("End"), formatDuration(r.endS));
    else if (r.droppedS >= 0)
        row(tr("Dropped"),
            QStringLiteral("%1: %2").arg(formatDuration(r.droppedS), html(QString::fromStdString(r.dropReason))));
    else
        row(tr("End"), tr("did not finish"));
    if (d.jctS)
        row(tr("JCT"), formatDuration(*d.jctS));
    if (r.idealS > 0)
        row(tr("Ideal run time"), tr("%1 (alone on its best allocation)").arg(formatDuration(r.idealS)));
    row(tr("Restarts"), QString::number(r.restarts));
    if (r.suspensions > 0)
        row(tr("Suspensions"), QString::number(r.suspensions));
    row(tr("GPU-hours"), QString::number(r.gpuSeconds / 3600.0, 'f', 2));
    if (r.costUsd > 0)
        row(tr("Cost"), formatCost(r.costUsd));
    out += QStringLiteral("</table>");

    out += tr("<h4>Allocations (%1)</h4>").arg(d.allocations.size());
    if (d.allocations.empty()) {
        out += tr("<p>None: it never ran.</p>");
    } else {
        // Runs whose source reports training samples per second (goodput jobs, model jobs): a column of its own.
        const bool goodput = std::any_of(d.allocations.begin(), d.allocations.end(),
                                         [](const JobAllocation& a) { return a.samplesPerS > 0; });
        out += QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'><tr><th>%1</th><th>%2</th><th>%3</th>"
                              "<th>%4</th><th>%5</th>%6</tr>")
                   .arg(tr("From"), tr("To"), tr("GPUs"), tr("Type"), tr("Nodes"),
                        goodput ? tr("<th>Samples/s</th>") : QString());
        for (const auto& a : d.allocations) {
            QStringList ids;
            for (int g : a.gpus)
                ids << QString::number(g);
            out += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td>%6</tr>")
                       .arg(formatDuration(a.startS), formatDuration(a.endS),
                            QStringLiteral("%1 (%2)").arg(a.gpus.size()).arg(ids.join(QStringLiteral(", "))),
                            html(a.gpuTypes), html(a.nodes.join(QStringLiteral(", "))),
                            goodput ? QStringLiteral("<td>%1</td>").arg(a.samplesPerS, 0, 'f', 1) : QString());
        }
        out += QStringLiteral("</table>");
    }
    if (!d.events.empty()) {
        out += tr("<h4>Events</h4><ul>");
        for (const auto& e : d.events)
            out +=
                QStringLiteral("<li>%1 %2%3</li>")
                    .arg(formatDuration(e.timeS),
                         e.kind == sim::JobEventKind::Reason ? tr("waits") : QString::fromLatin1(sim::toString(e.kind)),
                         e.detail.empty() ? QString() : QStringLiteral(": ") + html(QString::fromStdString(e.detail)));
        out += QStringLiteral("</ul>");
    }
    if (!r.extras.empty()) {
        out += tr("<h4>Policy's notes</h4><ul>");
        for (const auto& [k, v] : r.extras)
            out += QStringLiteral("<li><b>%1</b>: %2</li>")
                       .arg(html(QString::fromStdString(k)), html(QString::fromStdString(v)));
        out += QStringLiteral("</ul>");
    }
    return out;
}

} // namespace orrery::gui
