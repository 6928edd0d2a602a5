#include "io/serving_csv.h"

#include "io/csv_writer.h"

namespace orrery::io {

namespace {

void header(CsvWriter& csv, std::initializer_list<const char*> names)
{
    for (const char* h : names)
        csv.field(h);
    csv.endRow();
}

long long id(const serve::ServingRun& run)
{
    return static_cast<long long>(run.id);
}

} // namespace

void writeServingRunsCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs)
{
    CsvWriter csv(out);
    header(csv, {"run_id",        "created_at",     "method",
                 "model_set",     "models",         "gpu_type",
                 "gpus",          "rate_per_s",     "cv",
                 "slo_scale",     "requests",       "served",
                 "rejected",      "attainment_pct", "latency_mean_s",
                 "latency_p50_s", "latency_p90_s",  "latency_p99_s",
                 "latency_max_s", "groups",         "replicas",
                 "search_s"});
    for (const auto& r : runs) {
        const bool gamma = !r.spec.usesTrace();
        const bool served = r.latency.served > 0;
        int replicas = 0;
        for (const auto& g : r.groups)
            replicas += static_cast<int>(g.models.size());
        csv.field(id(r)).field(r.createdAt).field(r.spec.method).field(r.spec.modelSet);
        csv.field(serve::modelCountsText(r.spec.models)).field(r.spec.gpu).field(r.spec.gpus);
        gamma ? csv.field(r.spec.ratePerS) : csv.empty();
        gamma ? csv.field(r.spec.cv) : csv.empty();
        csv.field(r.spec.sloScale).field(r.requests).field(r.served).field(r.rejected).field(100 * r.attainment());
        for (double v : {r.latency.meanS, r.latency.p50S, r.latency.p90S, r.latency.p99S, r.latency.maxS})
            served ? csv.field(v) : csv.empty();
        csv.field(static_cast<int>(r.groups.size())).field(replicas).field(r.searchS);
        csv.endRow();
    }
}

void writeServingGroupsCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs)
{
    CsvWriter csv(out);
    header(csv, {"run_id", "segment", "group", "stages", "intra", "gpus", "models", "replicas", "utilisation_pct"});
    for (const auto& r : runs) {
        int index = 0, segment = -1;
        for (const auto& g : r.groups) {
            index = g.segment == segment ? index + 1 : 0;
            segment = g.segment;
            std::string names;
            for (const auto& m : g.models)
                names += (names.empty() ? "" : " ") + m;
            csv.field(id(r)).field(g.segment).field(index).field(g.config.stages).field(g.config.intra);
            csv.field(g.config.gpus()).field(names).field(static_cast<int>(g.models.size()));
            csv.field(100 * g.utilisation);
            csv.endRow();
        }
    }
}

void writeServingModelsCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs)
{
    CsvWriter csv(out);
    header(csv, {"run_id", "model", "kind", "slo_s", "requests", "served", "attainment_pct"});
    for (const auto& r : runs)
        for (const auto& m : r.models) {
            csv.field(id(r)).field(m.name).field(m.kind).field(m.sloS).field(m.requests).field(m.served);
            csv.field(100 * m.attainment());
            csv.endRow();
        }
}

void writeServingCdfCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs)
{
    CsvWriter csv(out);
    header(csv, {"run_id", "latency_s", "fraction"});
    for (const auto& r : runs)
        for (const auto& [latency, fraction] : r.cdf) {
            csv.field(id(r)).field(latency).field(fraction);
            csv.endRow();
        }
}

void writeAttainmentCurvesCsv(std::ostream& out, const serve::AttainmentCurves& curves)
{
    CsvWriter csv(out);
    const std::string axis = serve::curveAxisField(curves.axis, curves.trace);
    csv.field("method").field(axis).field("attainment_pct");
    csv.endRow();
    for (std::size_t m = 0; m < curves.methods.size(); ++m)
        for (std::size_t v = 0; v < curves.values.size() && v < curves.attainment[m].size(); ++v) {
            csv.field(curves.methods[m]).field(curves.values[v]).field(100 * curves.attainment[m][v]);
            csv.endRow();
        }
}

} // namespace orrery::io
