#include "timeline/timeline_rows.h"

#include <QCoreApplication>

namespace orrery::gui {

TimelineRows TimelineRows::fromCluster(const hardware::Cluster* cluster, int runGpus)
{
    TimelineRows r;
    int covered = 0;
    if (cluster && cluster->totalGpus() <= runGpus) {
        for (const auto& n : cluster->nodes())
            r.nodeNames.push_back(QString::fromStdString(n.name));
        for (int type : cluster->presentTypes()) {
            const auto& gpu = cluster->catalog().types()[static_cast<std::size_t>(type)];
            Group g;
            g.firstRow = static_cast<int>(r.rows.size());
            int nodes = 0;
            for (const auto& n : cluster->nodes()) {
                if (n.gpuTypeIndex != type)
                    continue;
                ++nodes;
                for (int i = 0; i < n.gpuCount; ++i)
                    r.rows.push_back({n.firstGpu + i, n.id, i, i == 0});
            }
            g.rowCount = static_cast<int>(r.rows.size()) - g.firstRow;
            g.title = QCoreApplication::translate("TimelineRows", "%1: %2 GPUs on %3 nodes")
                          .arg(QString::fromStdString(gpu.display.empty() ? gpu.name : gpu.display))
                          .arg(g.rowCount)
                          .arg(nodes);
            r.groups.push_back(g);
        }
        covered = cluster->totalGpus();
    }
    if (covered < runGpus) {
        Group g;
        g.firstRow = static_cast<int>(r.rows.size());
        for (int gpu = covered; gpu < runGpus; ++gpu)
            r.rows.push_back({gpu, -1, gpu, false});
        g.rowCount = runGpus - covered;
        g.title = QCoreApplication::translate("TimelineRows", "GPUs %1-%2").arg(covered).arg(runGpus - 1);
        r.groups.push_back(g);
    }
    return r;
}

} // namespace orrery::gui
