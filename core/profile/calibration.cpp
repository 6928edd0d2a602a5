#include "profile/calibration.h"

#include "estimate/operator_time.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "util/text.h"
#include "version.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace orrery::profile {

using nlohmann::json;

namespace {

double elementBytes(const std::string& precision)
{
    if (precision == "fp8")
        return 1;
    if (precision == "bf16" || precision == "fp16")
        return 2;
    return 4;
}

bool aligned(const GemmSample& g)
{
    return estimate::detail::tensorCoreAligned(g.m, g.n, g.k, elementBytes(g.precision));
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/** The estimator's own GEMM time (estimate::detail::gemmS) with a candidate curve. */
estimate::detail::KernelRates rates(double flops, double tile, double halfK, int sms, double bytesPerS, double gapS,
                                    double eBytes)
{
    estimate::detail::KernelRates r;
    r.gemmFlops = flops;
    r.tile = tile;
    r.halfK = halfK;
    r.waveTiles = sms;
    r.bytesPerS = bytesPerS;
    r.launchGapS = gapS;
    r.elementBytes = eBytes;
    return r;
}

std::string normalisedName(std::string name)
{
    name = util::toLower(name);
    std::string out;
    std::istringstream words(name);
    std::string w;
    // Vendor and brand words carry no type; the rest joins with dashes as the catalog's aliases do.
    for (std::string raw; words >> raw;) {
        for (char& c : raw)
            if (!std::isalnum(static_cast<unsigned char>(c)))
                c = '-';
        std::istringstream parts(raw);
        for (std::string part; std::getline(parts, part, '-');) {
            if (part.empty() || part == "nvidia" || part == "tesla" || part == "geforce" || part == "amd")
                continue;
            out += (out.empty() ? "" : "-") + part;
        }
    }
    return out;
}

json fitToJson(const GemmFit& f)
{
    return {{"precision", f.precision},
            {"tflops", f.tflops},
            {"tile", f.tile},
            {"half_k", f.halfK},
            {"median_error", f.medianError},
            {"max_measured_tflops", f.maxMeasuredTflops},
            {"floor_us", f.floorUs},
            {"samples", f.samples}};
}

} // namespace

double trainingGemmFactor(const DeviceInfo& device)
{
    return device.ccMajor >= 9 ? kTrainingGemmFactorHopper : kTrainingGemmFactorAmpere;
}

const GemmFit* Calibration::fit(const std::string& precision) const
{
    for (const GemmFit& f : gemm)
        if (f.precision == precision)
            return &f;
    return nullptr;
}

std::string matchCatalogType(const DeviceInfo& device, const hardware::GpuCatalog& catalog)
{
    std::string name = normalisedName(device.name);
    if (const hardware::GpuType* t = catalog.find(name))
        return t->name;
    // CUDA names some parts by their memory ("H100 80GB HBM3" is the SXM part): drop the memory kind,
    // then the size.
    for (const char* suffix : {"-hbm3e", "-hbm3", "-hbm2e", "-hbm2"})
        if (name.ends_with(suffix)) {
            name.resize(name.size() - std::string_view(suffix).size());
            if (const hardware::GpuType* t = catalog.find(name))
                return t->name;
        }
    return {};
}

GemmFit fitGemm(const std::vector<GemmSample>& all, const std::string& precision, int sms, double bytesPerS,
                double gapS)
{
    // The curve is the aligned kernels'; misaligned shapes get their own factor (calibrate()).
    std::vector<GemmSample> s;
    for (const GemmSample& g : all)
        if (g.precision == precision && g.seconds > 0 && aligned(g))
            s.push_back(g);
    if (s.size() < 3)
        throw Error(
            fmt::format("{} GEMMs: {} timed shapes, at least 3 are needed to fit a curve", precision, s.size()));
    GemmFit best;
    best.precision = precision;
    best.samples = int(s.size());
    double floorS = INFINITY;
    for (const GemmSample& g : s) {
        best.maxMeasuredTflops = std::max(best.maxMeasuredTflops, g.tflops());
        floorS = std::min(floorS, g.seconds);
    }
    best.floorUs = floorS * 1e6;
    const double eBytes = elementBytes(precision);
    // Back to back, the smallest GEMMs run at the rate the host issues library calls (~8 µs on an H200
    // host), not at any GPU rate: the fit takes the fastest call as a floor under the model, so that those
    // shapes do not bend the curve. The estimator prices host time per operator separately (the framework
    // profile's hostOpUs), which is why the floor is reported but not part of the curves.
    const auto predict = [&](const estimate::detail::KernelRates& r, const GemmSample& g) {
        return std::max(floorS, estimate::detail::gemmS(r, g.m, g.n, g.k));
    };

    // Least squares in log time over a grid: the tile edges GEMM libraries use, half-depths from 4 to
    // 1024 and rates around the best measured one. The model is not smooth in its parameters (waves,
    // the roofline's max), so a grid is more reliable than a gradient method, and small enough (~20k
    // points x tens of shapes) to take milliseconds.
    double bestCost = INFINITY;
    const double top = best.maxMeasuredTflops * 1e12;
    for (double tile : {64.0, 96.0, 128.0, 192.0, 256.0})
        for (int hk = 0; hk <= 40; ++hk) {
            const double halfK = 4 * std::pow(256.0, hk / 40.0);
            for (int fi = 0; fi <= 100; ++fi) {
                const double flops = top * (0.8 + 0.6 * fi / 100.0);
                const estimate::detail::KernelRates r = rates(flops, tile, halfK, sms, bytesPerS, gapS, eBytes);
                double cost = 0;
                for (const GemmSample& g : s) {
                    const double e = std::log(predict(r, g) / g.seconds);
                    cost += e * e;
                }
                if (cost < bestCost) {
                    bestCost = cost;
                    best.tflops = flops / 1e12;
                    best.tile = tile;
                    best.halfK = halfK;
                }
            }
        }
    const estimate::detail::KernelRates r =
        rates(best.tflops * 1e12, best.tile, best.halfK, sms, bytesPerS, gapS, eBytes);
    std::vector<double> errors;
    for (const GemmSample& g : s)
        errors.push_back(std::abs(predict(r, g) / g.seconds - 1));
    best.medianError = median(errors);
    return best;
}

Calibration calibrate(const Measurements& m, const hardware::GpuCatalog& catalog, const std::string& asType)
{
    Calibration c;
    c.measurements = m;
    if (m.device.sms < 1)
        throw Error("calibration: the device's multiprocessor count is missing");

    // Sustained bandwidth: the best streaming copy over buffers far larger than the L2 cache (smaller
    // ones partly hit it and read faster than memory can).
    double largest = 0;
    for (const StreamSample& s : m.stream)
        largest = std::max(largest, s.bytes);
    for (const StreamSample& s : m.stream)
        if (s.bytes >= std::min(largest, std::max(8 * m.device.l2Bytes, 64.0 * (1 << 20))))
            c.bandwidthGBps = std::max(c.bandwidthGBps, s.gbps());
    if (c.bandwidthGBps <= 0)
        throw Error("calibration: no memory-bandwidth samples");

    // The launch floor: an element-wise kernel's time less its memory traffic (one read, one write of
    // fp32), over sizes that fit in one wave; the median resists a preempted batch.
    std::vector<double> floors;
    for (const LaunchSample& l : m.elementwise)
        if (l.elements <= 65536 && l.seconds > 0)
            floors.push_back(l.seconds - 8 * l.elements / (c.bandwidthGBps * 1e9));
    if (floors.empty())
        throw Error("calibration: no element-wise kernel samples of at most 65536 elements");
    c.kernelFloorUs = std::max(0.0, median(floors)) * 1e6;

    for (const PeerSample& p : m.peers)
        c.peerGBps = std::max(c.peerGBps, p.gbps());

    const double bytesPerS = c.bandwidthGBps * 1e9;
    const double gapS = c.kernelFloorUs * 1e-6;
    for (const char* precision : {"bf16", "fp16", "tf32", "fp32", "fp8"}) {
        const auto n = std::count_if(m.gemm.begin(), m.gemm.end(), [&](const GemmSample& g) {
            return g.precision == precision && g.seconds > 0 && aligned(g);
        });
        if (n >= 3)
            c.gemm.push_back(fitGemm(m.gemm, precision, m.device.sms, bytesPerS, gapS));
    }
    const GemmFit* half = c.fit("bf16") ? c.fit("bf16") : c.fit("fp16");
    if (!half)
        throw Error("calibration: no bf16 or fp16 GEMMs were measured, so there is no tensor-core curve to fit");
    const GemmFit* single = c.fit("fp32");

    // Misaligned GEMMs: the median of the aligned curve's time over the measured one (a rate fraction).
    std::vector<double> misaligned;
    {
        estimate::detail::KernelRates r =
            rates(half->tflops * 1e12, half->tile, half->halfK, m.device.sms, bytesPerS, gapS, 2);
        for (const GemmSample& g : m.gemm)
            if (g.precision == half->precision && g.seconds > 0 && !aligned(g))
                misaligned.push_back(estimate::detail::gemmS(r, g.m, g.n, g.k, 1, true) / g.seconds);
    }
    c.misalignedSamples = int(misaligned.size());
    c.misalignedEfficiency = misaligned.empty() ? 0 : std::clamp(median(misaligned), 0.01, 1.0);

    c.catalogType = asType.empty() ? matchCatalogType(m.device, catalog) : catalog.at(asType).name;
    hardware::GpuCurves curves;
    curves.sms = m.device.sms;
    curves.tile = half->tile;
    curves.halfK = half->halfK;
    curves.kernelFloorUs = c.kernelFloorUs;
    curves.source = fmt::format("measured by orrery-cli profile{}: {} on {}, driver {}, CUDA {}.{}, {}",
                                m.quick ? " --quick" : "", m.device.name, m.host.empty() ? "an unnamed host" : m.host,
                                m.device.driver.empty() ? "unknown" : m.device.driver, m.device.cudaRuntime / 1000,
                                (m.device.cudaRuntime % 1000) / 10, m.measuredAt);
    if (!c.catalogType.empty()) {
        // A known type keeps its datasheet peaks; the curves say what share of them this GPU reaches.
        c.type = *catalog.find(c.catalogType);
        curves.gemmEfficiency = half->tflops * trainingGemmFactor(m.device) / c.type.fp16TFlops;
        curves.fp32GemmEfficiency =
            single ? single->tflops / c.type.fp32TFlops : defaultCurves(c.type).fp32GemmEfficiency;
        curves.memoryEfficiency = c.bandwidthGBps / c.type.memoryBandwidthGBps;
    } else {
        // An unknown GPU: its catalog entry records the measured rates as its peaks (efficiency 1), except
        // the in-training factor, which no isolated measurement shows.
        hardware::GpuType& t = c.type;
        t.name = normalisedName(m.device.name);
        if (t.name.empty())
            t.name = "profiled-gpu";
        t.display = m.device.name;
        t.vendor = "nvidia";
        t.memoryGiB = std::round(m.device.totalBytes / (1024.0 * 1024 * 1024) * 10) / 10;
        t.fp16TFlops = half->tflops;
        t.fp32TFlops = single ? single->tflops : half->tflops / 8;
        t.memoryBandwidthGBps = c.bandwidthGBps;
        if (c.peerGBps > 100) {
            t.intraLink.kind = hardware::LinkKind::NVLink;
            t.intraLink.bandwidthGBps = c.peerGBps;
        } else {
            t.intraLink.kind = hardware::LinkKind::PCIe;
            t.intraLink.bandwidthGBps = c.peerGBps > 0 ? c.peerGBps : 16.0;
        }
        t.source = "catalog entry written by orrery-cli profile from measured rates (docs/models/profiler.md)";
        curves.gemmEfficiency = trainingGemmFactor(m.device);
        curves.fp32GemmEfficiency = single ? 1.0 : defaultCurves(t).fp32GemmEfficiency;
        curves.memoryEfficiency = 1.0;
    }
    // The fallback kernels draw little power and keep their isolated rate inside a training step, while
    // the aligned rate they are a fraction of is the in-training one: divide by the in-training factor.
    curves.misalignedGemmEfficiency = c.misalignedSamples > 0
                                          ? std::min(1.0, c.misalignedEfficiency / trainingGemmFactor(m.device))
                                          : hardware::defaultCurves(c.type).misalignedGemmEfficiency;
    // FP8: the measured fp8 curve's large-GEMM rate over the bf16 one on the same shapes; without fp8 samples
    // (older GPUs, or a --quick run without them) the type's default.
    const GemmFit* fp8 = c.fit("fp8");
    curves.fp8GemmSpeedup = fp8 ? fp8->tflops / half->tflops : hardware::defaultCurves(c.type).fp8GemmSpeedup;
    // The profiler times GEMMs, not attention kernels: FlashAttention-2's share of the GEMM rate is the type's default.
    curves.flash2Efficiency = hardware::defaultCurves(c.type).flash2Efficiency;
    c.type.curves = curves;
    return c;
}

json measurementsToJson(const Measurements& m)
{
    const DeviceInfo& d = m.device;
    json out;
    out["device"] = {{"name", d.name},
                     {"driver", d.driver},
                     {"cuda_driver", d.cudaDriver},
                     {"cuda_runtime", d.cudaRuntime},
                     {"compute_capability", fmt::format("{}.{}", d.ccMajor, d.ccMinor)},
                     {"sms", d.sms},
                     {"device_count", d.deviceCount},
                     {"total_bytes", d.totalBytes},
                     {"free_bytes", d.freeBytes},
                     {"usable_bytes", d.usableBytes},
                     {"context_bytes", d.contextBytes},
                     {"l2_bytes", d.l2Bytes}};
    out["measured_at"] = m.measuredAt;
    out["host"] = m.host;
    out["quick"] = m.quick;
    json& gemm = out["gemm"] = json::array();
    for (const GemmSample& g : m.gemm)
        gemm.push_back({{"precision", g.precision},
                        {"m", g.m},
                        {"n", g.n},
                        {"k", g.k},
                        {"seconds", g.seconds},
                        {"tflops", g.tflops()}});
    json& stream = out["stream"] = json::array();
    for (const StreamSample& s : m.stream)
        stream.push_back({{"kernel", s.kernel}, {"bytes", s.bytes}, {"seconds", s.seconds}, {"gb_s", s.gbps()}});
    json& ew = out["elementwise"] = json::array();
    for (const LaunchSample& l : m.elementwise)
        ew.push_back({{"elements", l.elements}, {"seconds", l.seconds}});
    json& peers = out["peers"] = json::array();
    for (const PeerSample& p : m.peers)
        peers.push_back({{"source", p.source},
                         {"target", p.target},
                         {"bytes", p.bytes},
                         {"seconds", p.seconds},
                         {"gb_s", p.gbps()}});
    out["skipped"] = m.skipped;
    return out;
}

Measurements measurementsFromJson(const json& value, const std::string& path)
{
    io::JsonObject o(value, path);
    Measurements m;
    {
        io::JsonObject d = o.object("device");
        DeviceInfo& dev = m.device;
        dev.name = d.string("name");
        dev.driver = d.string("driver", "");
        dev.cudaDriver = int(d.integer("cuda_driver", 0, 0, 1000000));
        dev.cudaRuntime = int(d.integer("cuda_runtime", 0, 0, 1000000));
        const std::string cc = d.string("compute_capability", "0.0");
        if (std::sscanf(cc.c_str(), "%d.%d", &dev.ccMajor, &dev.ccMinor) != 2)
            d.fail("compute_capability", "expected \"major.minor\", got \"" + cc + "\"");
        dev.sms = int(d.integer("sms", 1, 100000));
        dev.deviceCount = int(d.integer("device_count", 1, 0, 1024));
        dev.totalBytes = d.positiveNumber("total_bytes");
        dev.freeBytes = d.nonNegativeNumber("free_bytes", 0);
        dev.usableBytes = d.nonNegativeNumber("usable_bytes", 0);
        dev.contextBytes = d.nonNegativeNumber("context_bytes", 0);
        dev.l2Bytes = d.nonNegativeNumber("l2_bytes", 0);
        d.finish();
    }
    m.measuredAt = o.string("measured_at", "");
    m.host = o.string("host", "");
    m.quick = o.boolean("quick", false);
    const json& gemm = o.array("gemm");
    for (std::size_t i = 0; i < gemm.size(); ++i) {
        io::JsonObject g(gemm[i], io::indexPath(o.childPath("gemm"), i));
        GemmSample s;
        s.precision = g.choice("precision", {"bf16", "fp16", "tf32", "fp32", "fp8"}, "");
        s.m = g.positiveNumber("m");
        s.n = g.positiveNumber("n");
        s.k = g.positiveNumber("k");
        s.seconds = g.positiveNumber("seconds");
        g.allow({"tflops"});
        g.finish();
        m.gemm.push_back(s);
    }
    const json& stream = o.array("stream");
    for (std::size_t i = 0; i < stream.size(); ++i) {
        io::JsonObject s(stream[i], io::indexPath(o.childPath("stream"), i));
        m.stream.push_back({s.choice("kernel", {"copy", "triad", "memcpy"}, ""), s.positiveNumber("bytes"),
                            s.positiveNumber("seconds")});
        s.allow({"gb_s"});
        s.finish();
    }
    const json& ew = o.array("elementwise");
    for (std::size_t i = 0; i < ew.size(); ++i) {
        io::JsonObject l(ew[i], io::indexPath(o.childPath("elementwise"), i));
        m.elementwise.push_back({l.positiveNumber("elements"), l.positiveNumber("seconds")});
        l.finish();
    }
    if (const json* peers = o.member("peers")) {
        if (!peers->is_array())
            o.fail("peers", "expected an array");
        for (std::size_t i = 0; i < peers->size(); ++i) {
            io::JsonObject p((*peers)[i], io::indexPath(o.childPath("peers"), i));
            PeerSample s;
            s.source = int(p.integer("source", 0, 1023));
            s.target = int(p.integer("target", 0, 1023));
            s.bytes = p.positiveNumber("bytes");
            s.seconds = p.positiveNumber("seconds");
            p.allow({"gb_s"});
            p.finish();
            m.peers.push_back(s);
        }
    }
    if (o.has("skipped"))
        m.skipped = o.stringList("skipped");
    o.finish();
    return m;
}

json calibrationToJson(const Calibration& c)
{
    json doc;
    doc["format"] = "orrery-calibration";
    doc["version"] = 1;
    doc["written_by"] = std::string("orrery ") + kVersion;
    doc["catalog_type"] = c.catalogType.empty() ? json(nullptr) : json(c.catalogType);
    json fit;
    fit["bandwidth_gb_s"] = c.bandwidthGBps;
    fit["kernel_floor_us"] = c.kernelFloorUs;
    fit["peer_gb_s"] = c.peerGBps;
    fit["training_gemm_factor"] = trainingGemmFactor(c.measurements.device);
    fit["misaligned_efficiency"] = c.misalignedEfficiency;
    fit["misaligned_samples"] = c.misalignedSamples;
    fit["gemm"] = json::array();
    for (const GemmFit& f : c.gemm)
        fit["gemm"].push_back(fitToJson(f));
    doc["fit"] = fit;
    doc["gpu"] = hardware::gpuTypeToJson(c.type);
    doc["measurements"] = measurementsToJson(c.measurements);
    return doc;
}

Calibration calibrationFromJson(const json& doc, const std::string& file)
{
    try {
        io::JsonObject o(doc, "");
        if (o.string("format") != "orrery-calibration")
            o.fail("format", "expected \"orrery-calibration\"");
        if (o.integer("version", 1, 1) != 1)
            o.fail("version", "expected 1");
        o.string("written_by", "");
        Calibration c;
        if (const json* t = o.member("catalog_type"); t && !t->is_null()) {
            if (!t->is_string())
                o.fail("catalog_type", "expected a GPU type name or null");
            c.catalogType = t->get<std::string>();
        }
        const json* gpu = o.member("gpu");
        if (!gpu)
            o.fail("gpu", "expected the calibrated GPU type");
        c.type = hardware::gpuTypeFromJson(*gpu, "gpu");
        if (!c.type.curves)
            o.fail("gpu", "expected the type's measured \"curves\"");
        const json* measured = o.member("measurements");
        if (!measured)
            o.fail("measurements", "expected the profile's measurements");
        c.measurements = measurementsFromJson(*measured, "measurements");
        if (const json* fit = o.member("fit")) {
            io::JsonObject f(*fit, "fit");
            c.bandwidthGBps = f.nonNegativeNumber("bandwidth_gb_s", 0);
            c.kernelFloorUs = f.nonNegativeNumber("kernel_floor_us", 0);
            c.peerGBps = f.nonNegativeNumber("peer_gb_s", 0);
            f.allow({"training_gemm_factor"});
            c.misalignedEfficiency = f.nonNegativeNumber("misaligned_efficiency", 0);
            c.misalignedSamples = int(f.integer("misaligned_samples", 0, 0, 1000000));
            const json& gemm = f.array("gemm");
            for (std::size_t i = 0; i < gemm.size(); ++i) {
                io::JsonObject g(gemm[i], io::indexPath("fit.gemm", i));
                GemmFit gf;
                gf.precision = g.string("precision");
                gf.tflops = g.positiveNumber("tflops");
                gf.tile = g.positiveNumber("tile");
                gf.halfK = g.nonNegativeNumber("half_k");
                gf.medianError = g.nonNegativeNumber("median_error", 0);
                gf.maxMeasuredTflops = g.nonNegativeNumber("max_measured_tflops", 0);
                gf.floorUs = g.nonNegativeNumber("floor_us", 0);
                gf.samples = int(g.integer("samples", 0, 0, 1000000));
                g.finish();
                c.gemm.push_back(gf);
            }
            f.finish();
        }
        o.finish();
        return c;
    } catch (const Error& e) {
        throw e.inFile(file);
    }
}

Calibration loadCalibration(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error(path, "", "cannot open the calibration file");
    std::stringstream text;
    text << in.rdbuf();
    return calibrationFromJson(io::parseJson(text.str(), path), path);
}

std::vector<std::string> calibrationFilesFromEnvironment()
{
    std::vector<std::string> files;
    const char* env = std::getenv("ORRERY_CALIBRATION");
    std::istringstream list(env ? env : "");
    for (std::string f; std::getline(list, f, ':');)
        if (!f.empty())
            files.push_back(f);
    return files;
}

void applyCalibrations(const std::vector<std::string>& files)
{
    for (const std::string& file : files)
        hardware::GpuCatalog::calibrateBuiltin(loadCalibration(file).type);
}

void saveCalibration(const Calibration& c, const std::string& path)
{
    std::ofstream out(path);
    if (!out)
        throw Error(path, "", "cannot write the calibration file");
    out << calibrationToJson(c).dump(2) << '\n';
    if (!out)
        throw Error(path, "", "writing the calibration file failed");
}

} // namespace orrery::profile
