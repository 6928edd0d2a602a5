#pragma once

#include "hardware/cluster.h"

#include <QString>

#include <vector>

namespace orrery::gui {

/** The Gantt's vertical layout: GPUs grouped by type, then node; a header strip above each type. */
struct TimelineRows
{
    struct Row
    {
        int gpu = 0;
        int node = -1;
        int localGpu = 0;
        bool firstOfNode = false;
    };
    struct Group
    {
        QString title; ///< "A100 40GB SXM: 16 GPUs on 2 nodes"
        int firstRow = 0;
        int rowCount = 0;
    };
    std::vector<Row> rows;
    std::vector<Group> groups;
    std::vector<QString> nodeNames;

    /** From a cluster; when it has fewer GPUs than the run, the extra GPUs get a plain group. */
    static TimelineRows fromCluster(const hardware::Cluster* cluster, int runGpus);
};

} // namespace orrery::gui
