#pragma once

#include "hardware/cluster.h"
#include "sim/run_result.h"

#include <QDateTime>
#include <QString>

#include <memory>
#include <vector>

namespace orrery::gui {

/**
 * A finished run as the views see it: immutable and shared, so views, the
 * exporters and the store writer read the same columns without copying.
 */
struct RunEntry
{
    int id = 0;          ///< GUI-wide id (stable while the window is open)
    qint64 storeId = -1; ///< row id in the store, once saved
    QString storePath;   ///< the store file that row id is in (ids repeat across files)
    QString name;        ///< "fifo #2"
    QString scenarioName;
    std::shared_ptr<const sim::RunResult> result;
    std::shared_ptr<const hardware::Cluster> cluster; ///< the cluster it ran on (Gantt rows, prices)
    std::shared_ptr<const std::string> scenarioJson;  ///< the scenario as run, for the store
    /** Themis' placement score 1/S per allocation (metrics::placementScores), computed on the worker that made or
     *  loaded the run: it needs the cluster's locality model, which the result does not hold. Null: unknown. */
    std::shared_ptr<const std::vector<double>> placementScores;
    QDateTime finishedAt;
};

} // namespace orrery::gui
