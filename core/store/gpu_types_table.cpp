#include "store/gpu_types_table.h"

#include "store/sqlite.h"

namespace orrery::store {

void writeGpuTypes(Connection& db, std::int64_t runId, const std::vector<std::string>& names,
                   const std::vector<int>& gpus, const std::vector<double>& usdPerGpuHour)
{
    auto del = db.cached("DELETE FROM run_gpu_types WHERE run_id = ?1");
    del->bind(1, runId);
    del->run();
    auto ins = db.cached("INSERT INTO run_gpu_types (run_id, type_index, gpu_type, gpus, usd_per_gpu_hour) "
                         "VALUES (?1, ?2, ?3, ?4, ?5)");
    ins->bind(1, runId);
    for (std::size_t t = 0; t < names.size(); ++t) {
        ins->bind(2, static_cast<std::int64_t>(t))
            .bind(3, names[t])
            .bind(4, t < gpus.size() ? gpus[t] : 0)
            .bind(5, t < usdPerGpuHour.size() ? usdPerGpuHour[t] : 0.0);
        ins->run();
    }
}

} // namespace orrery::store
