#include "store_fixtures.h"

#include "store/sqlite.h"

#include <fmt/format.h>

#include <fstream>
#include <vector>

namespace orrery::test {

hardware::GpuLayout twoNodeLayout()
{
    hardware::GpuLayout l;
    l.nodeNames = {"a100-0", "rtx-0"};
    l.gpuNode = {0, 0, 0, 0, 1, 1};
    l.gpuTypes = {"a100-40gb-sxm", "a100-40gb-sxm", "a100-40gb-sxm", "a100-40gb-sxm", "rtx2080ti", "rtx2080ti"};
    return l;
}

store::RunInfo twoNodeRunInfo(const std::string& scenarioName, const std::string& scenarioJson,
                              const std::string& policy, std::uint64_t seed)
{
    store::RunInfo i;
    i.scenarioName = scenarioName;
    i.scenarioJson = scenarioJson;
    i.policy = policy;
    i.seed = seed;
    i.gpuTypes = {"a100-40gb-sxm", "rtx2080ti"};
    i.gpusByType = {4, 2};
    i.priceUsdPerHourByType = {3.67, 0.4};
    i.layout = twoNodeLayout();
    return i;
}

sim::RunResult twoNodeRun(const std::string& policy, std::uint64_t seed)
{
    sim::RunResult r;
    r.policy = policy;
    r.seed = seed;
    r.gpuTypes = {"a100-40gb-sxm", "rtx2080ti"};
    r.gpusByType = {4, 2};
    r.priceUsdPerHourByType = {3.67, 0.4};
    r.gpuType = {0, 0, 0, 0, 1, 1};
    r.totalGpus = 6;
    return r;
}

void writeGeneratorScenario(const std::string& path, const std::string& name, int jobs)
{
    std::ofstream out(path);
    out << fmt::format(R"({{"format":"orrery-scenario","version":1,"name":"{}",
      "cluster":{{"nodes":[{{"name":"v100","gpu":"v100","count":8,"gpus_per_node":8}},
                           {{"name":"k80","gpu":"k80","count":4,"gpus_per_node":4}}],
                 "network":{{"kind":"ethernet","bandwidth_gbit_s":25}}}},
      "workload":{{"generator":{{"jobs":{},"rate_per_hour":120,"seed":1,"mix":[{{"gpus":[1,2,4]}}]}}}},
      "policies":["fifo"]}})",
                       name, jobs);
}

std::int64_t queryIntOrMinusOne(const std::string& db, const std::string& sql)
{
    try {
        store::Connection c(db, store::Connection::Mode::ReadOnly);
        return c.queryInt(sql);
    } catch (const std::exception&) {
        return -1;
    }
}

std::string storeRows(const std::string& db)
{
    store::Connection c(db, store::Connection::Mode::ReadOnly);
    std::vector<std::string> tables;
    {
        store::Statement s(c, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                              "ORDER BY name");
        while (s.step())
            tables.push_back(s.columnText(0));
    }
    std::string out;
    for (const auto& table : tables) {
        std::vector<std::string> values;
        {
            store::Statement s(c, fmt::format("SELECT name, pk FROM pragma_table_info('{}') ORDER BY cid", table));
            while (s.step()) {
                const std::string column = s.columnText(0);
                if (column.ends_with("_at") || column == "uid")
                    continue;
                values.push_back(fmt::format("'{0}=' || typeof(\"{0}\") || ':' || CASE typeof(\"{0}\") WHEN 'real' "
                                             "THEN printf('%!.17g', \"{0}\") WHEN 'blob' THEN hex(\"{0}\") ELSE "
                                             "quote(\"{0}\") END",
                                             column));
            }
        }
        const bool withRowid = c.queryInt(fmt::format("SELECT count(*) FROM sqlite_schema WHERE name = '{}' AND sql "
                                                      "LIKE '%WITHOUT ROWID%'",
                                                      table)) == 0;
        std::string select = withRowid ? "'rowid=' || rowid" : "''";
        for (const auto& v : values)
            select += " || ' ' || " + v;
        store::Statement s(c,
                           fmt::format("SELECT {} FROM \"{}\" ORDER BY {}", select, table, withRowid ? "rowid" : "1"));
        out += table + ":\n";
        while (s.step())
            out += s.columnText(0) + "\n";
    }
    return out;
}

} // namespace orrery::test
