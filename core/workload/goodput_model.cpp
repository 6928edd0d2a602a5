#include "workload/goodput_model.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace orrery::workload {

namespace {

// Pollux's lower bound on every parameter (goodput.py, fit_perf_params): keeps the logs and the gamma-norm finite.
constexpr double kTiny = 1e-8;
// Pollux's tolerance for ceil() of batch ratios (simulator.py update_local_bsz, goodput.py optimize).
constexpr double kEps = 1e-8;

/** a + b x minimising sum ((a + b x - y) / y)^2: relative error, the linear stand-in for Pollux's log error. */
void relativeLine(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b)
{
    double sw = 0, swx = 0, swy = 0, swxx = 0, swxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double w = 1.0 / (y[i] * y[i]);
        sw += w;
        swx += w * x[i];
        swy += w * y[i];
        swxx += w * x[i] * x[i];
        swxy += w * x[i] * y[i];
    }
    const double det = sw * swxx - swx * swx;
    if (x.empty()) {
        a = kTiny;
        b = kTiny;
        return;
    }
    if (std::abs(det) > 1e-12 * sw * swxx) {
        b = (sw * swxy - swx * swy) / det;
        a = (swy - b * swx) / sw;
    } else {
        b = 0;
        a = swy / sw;
    }
    // Both terms are costs: a negative slope (or intercept) is clamped and the other refitted, as Pollux's bounds do.
    if (b < kTiny) {
        b = kTiny;
        a = (swy - b * swx) / sw;
    }
    if (a < kTiny) {
        a = kTiny;
        b = std::max(kTiny, (swxy - a * swx) / swxx);
    }
}

double stepLogError(const PerfParams& p, const ProfileRow& r)
{
    return std::log(iterationTimeS(p, r.nodes, r.replicas, r.localBsz, 0)) - std::log(r.stepS);
}

} // namespace

double accumTimeS(const PerfParams& p, double atomicBsz)
{
    return p.alphaC + p.betaC * atomicBsz;
}

double networkTimeS(const PerfParams& p, int nodes, int replicas)
{
    const double retro = std::max(static_cast<double>(replicas) - 2.0, kTiny);
    if (nodes > 1)
        return p.alphaN + p.betaN * retro;
    if (replicas > 1)
        return p.alphaR + p.betaR * retro;
    return kTiny + kTiny * retro;
}

double iterationTimeS(const PerfParams& p, int nodes, int replicas, double atomicBsz, int accumSteps)
{
    const double accum = accumTimeS(p, atomicBsz);
    const double net = networkTimeS(p, nodes, replicas);
    const double optim = std::pow(std::pow(accum, p.gamma) + std::pow(net, p.gamma), 1.0 / p.gamma);
    return accumSteps * accum + optim;
}

PerfFit fitPerfParams(const std::vector<ProfileRow>& rows)
{
    if (rows.empty())
        throw Error("fitPerfParams: no profile rows to fit");
    PerfFit best;
    best.rows = static_cast<int>(rows.size());
    // Compute time: linear in the per-GPU batch, fitted to step - sync.
    std::vector<double> xb, yc;
    for (const auto& r : rows) {
        const double c = r.stepS - r.syncS;
        if (c <= 0) {
            ++best.computeRowsSkipped;
            continue;
        }
        xb.push_back(r.localBsz);
        yc.push_back(c);
    }
    PerfParams p;
    if (xb.empty()) {
        // No compute time measured at all: the whole step is compute (an optimistic model, as Pollux's priors are).
        for (const auto& r : rows) {
            xb.push_back(r.localBsz);
            yc.push_back(r.stepS);
        }
    }
    relativeLine(xb, yc, p.alphaC, p.betaC);
    if (std::adjacent_find(xb.begin(), xb.end(), std::not_equal_to<>()) == xb.end()) {
        // One batch size only: Pollux splits the time equally between the constant and the slope.
        p.alphaC = yc[0] / 2;
        p.betaC = std::max(kTiny, (yc[0] - p.alphaC) / xb[0]);
    }
    // Network: for each gamma on a grid, the network time each row implies, fitted by a line per link kind;
    // the gamma whose model reproduces the step times best (least squared log error) wins.
    double bestErr = std::numeric_limits<double>::infinity();
    for (int g = 0; g <= 36; ++g) {
        PerfParams q = p;
        q.gamma = 1.0 + 0.25 * g;
        std::vector<double> xr, yr, xn, yn;
        for (const auto& r : rows) {
            if (r.replicas < 2)
                continue;
            const double a = std::pow(accumTimeS(q, r.localBsz), q.gamma);
            const double s = std::pow(r.stepS, q.gamma);
            if (s <= a)
                continue; // the step is no longer than the predicted compute: the row says nothing of the network
            const double net = std::pow(s - a, 1.0 / q.gamma);
            const double x = std::max(r.replicas - 2.0, 0.0);
            (r.nodes > 1 ? xn : xr).push_back(x);
            (r.nodes > 1 ? yn : yr).push_back(net);
        }
        relativeLine(xr, yr, q.alphaR, q.betaR);
        if (xn.empty()) {
            // Pollux's prior without multi-node observations: inter-node at least 1.1 x intra-node.
            q.alphaN = q.alphaR * 1.1;
            q.betaN = q.betaR * 1.1;
        } else {
            relativeLine(xn, yn, q.alphaN, q.betaN);
        }
        double err = 0;
        for (const auto& r : rows)
            err += std::pow(stepLogError(q, r), 2);
        if (err < bestErr) {
            bestErr = err;
            best.params = q;
        }
    }
    best.rmsle = std::sqrt(bestErr / static_cast<double>(rows.size()));
    double sumRel = 0;
    for (const auto& r : rows) {
        const double rel = std::abs(iterationTimeS(best.params, r.nodes, r.replicas, r.localBsz, 0) / r.stepS - 1.0);
        sumRel += rel;
        best.maxAbsRelError = std::max(best.maxAbsRelError, rel);
    }
    best.meanAbsRelError = sumRel / static_cast<double>(rows.size());
    return best;
}

double statisticalEfficiency(double gradSqr, double gradVar, double batch, double initBatch)
{
    const double scale = std::max(batch / initBatch, 1.0);
    const double denom = gradVar / scale + gradSqr;
    const double gain = denom > 0 ? (gradVar + gradSqr) / denom : 1.0;
    return gain / scale;
}

int defaultMaxEpochs(const std::string& application)
{
    // applications.py of both artifacts (Pollux simulator/applications.py:232-238, Sia
    // sia-simulator/applications.py:342-348).
    if (application == "bert")
        return 2;
    if (application == "cifar10")
        return 100;
    if (application == "ncf")
        return 10;
    if (application == "imagenet")
        return 90;
    if (application == "deepspeech2")
        return 80;
    if (application == "yolov3")
        return 50;
    if (application == "gpt_pmp")
        return 2;
    return 0;
}

GoodputModel::GoodputModel(const GoodputProfile& profile, int maxEpochs)
    : m_app(profile.application), m_validation(profile.validation)
{
    if (m_validation.empty())
        throw Error(m_app, "", "no validation runs");
    m_initBatch = m_validation.begin()->first;
    m_maxBatch = m_validation.rbegin()->first;
    std::size_t shortest = std::numeric_limits<std::size_t>::max();
    for (const auto& [b, rows] : m_validation)
        shortest = std::min(shortest, rows.size());
    m_maxEpochs = maxEpochs > 0 ? maxEpochs : defaultMaxEpochs(m_app);
    if (m_maxEpochs <= 0 || static_cast<std::size_t>(m_maxEpochs) > shortest)
        m_maxEpochs = static_cast<int>(shortest);
    // Pollux's get_progress(max_epochs): the least progress any validation run had after its last epoch.
    m_targetProgress = std::numeric_limits<double>::infinity();
    for (const auto& [b, rows] : m_validation)
        m_targetProgress = std::min(m_targetProgress, rows[static_cast<std::size_t>(m_maxEpochs - 1)].progress);
    for (const auto& [suffix, rows] : profile.rows) {
        if (rows.empty())
            continue;
        Type t;
        t.fit = fitPerfParams(rows);
        double lo = std::numeric_limits<double>::infinity(), hi = 0;
        for (const auto& r : rows) {
            lo = std::min(lo, r.localBsz);
            hi = std::max(hi, r.localBsz);
        }
        t.minLocalBsz = static_cast<int>(lo);
        t.maxLocalBsz = static_cast<int>(hi);
        // Sia's one exception (sia-simulator/applications.py:51-52): deepspeech2 on RTX 2080 Ti fits 57, not 80.
        if (m_app == "deepspeech2" && suffix == "rtx")
            t.maxLocalBsz = 57;
        m_types.emplace(suffix, t);
    }
}

std::vector<std::string> GoodputModel::suffixes() const
{
    std::vector<std::string> out;
    for (const auto& [s, t] : m_types)
        out.push_back(s);
    return out;
}

const GoodputModel::Type& GoodputModel::type(const std::string& suffix) const
{
    const auto it = m_types.find(suffix);
    if (it == m_types.end())
        throw Error(m_app, "", fmt::format("no profile for GPU suffix \"{}\"", suffix));
    return it->second;
}

BatchConfig GoodputModel::configFor(const std::string& suffix, int replicas, int batch) const
{
    const Type& t = type(suffix);
    const int b = std::clamp(batch, m_initBatch, m_maxBatch);
    const int r = std::max(replicas, 1);
    BatchConfig c;
    const double local = std::ceil(static_cast<double>(b) / r - kEps);
    c.accumSteps = static_cast<int>(std::ceil(local / t.maxLocalBsz - kEps)) - 1;
    // Pollux: one replica above the initial batch accumulates at least once (its gradient statistics need two
    // micro-batches).
    if (r == 1 && b > m_initBatch)
        c.accumSteps = std::max(1, c.accumSteps);
    c.accumSteps = std::max(c.accumSteps, 0);
    c.atomicBsz = static_cast<int>(std::ceil(local / (c.accumSteps + 1) - kEps));
    const int count = r * (c.accumSteps + 1);
    c.atomicBsz = std::max(1, std::min(c.atomicBsz, m_maxBatch / count));
    c.batch = r * c.atomicBsz * (c.accumSteps + 1);
    return c;
}

double GoodputModel::throughputSamplesS(const std::string& suffix, int nodes, int replicas, int batch) const
{
    const BatchConfig c = configFor(suffix, replicas, batch);
    return c.batch / iterationTimeS(type(suffix).fit.params, nodes, replicas, c.atomicBsz, c.accumSteps);
}

int GoodputModel::epochAt(double progress) const
{
    // Pollux's get_epoch: the epochs any validation run completed before this much progress.
    const double p = std::clamp(progress, 0.0, 1.0) * m_targetProgress;
    std::size_t epoch = 0;
    for (const auto& [b, rows] : m_validation) {
        const auto it = std::upper_bound(rows.begin(), rows.end(), p,
                                         [](double v, const ValidationRow& row) { return v < row.progress; });
        epoch = std::max(epoch, static_cast<std::size_t>(it - rows.begin()));
    }
    return std::min(static_cast<int>(epoch), m_maxEpochs - 1);
}

void GoodputModel::gradStats(int batch, int epoch, double& sqr, double& var) const
{
    // Linear between the validated batches around it (Pollux's get_grad_stats), clamped to the validated range.
    const int b = std::clamp(batch, m_initBatch, m_maxBatch);
    auto hi = m_validation.lower_bound(b);
    const auto e = static_cast<std::size_t>(epoch);
    if (hi->first == b) {
        sqr = hi->second[e].gradSqr;
        var = hi->second[e].gradVar;
        return;
    }
    auto lo = std::prev(hi);
    const double w = static_cast<double>(b - lo->first) / (hi->first - lo->first);
    sqr = (1 - w) * lo->second[e].gradSqr + w * hi->second[e].gradSqr;
    var = (1 - w) * lo->second[e].gradVar + w * hi->second[e].gradVar;
}

double GoodputModel::efficiencyAt(int batch, double progress) const
{
    return efficiencyInEpoch(batch, epochAt(progress));
}

double GoodputModel::efficiencyInEpoch(int batch, int epoch) const
{
    double sqr = 0, var = 0;
    gradStats(batch, epoch, sqr, var);
    return statisticalEfficiency(sqr, var, batch, m_initBatch);
}

double GoodputModel::maxEfficiency(int batch) const
{
    double best = 0;
    for (int e = 0; e < m_maxEpochs; ++e) {
        double sqr = 0, var = 0;
        gradStats(batch, e, sqr, var);
        best = std::max(best, statisticalEfficiency(sqr, var, batch, m_initBatch));
    }
    return best;
}

double GoodputModel::goodput(const std::string& suffix, int nodes, int replicas, int batch, double progress) const
{
    const BatchConfig c = configFor(suffix, replicas, batch);
    const double t = iterationTimeS(type(suffix).fit.params, nodes, replicas, c.atomicBsz, c.accumSteps);
    return c.batch / t * efficiencyAt(c.batch, progress);
}

int GoodputModel::bestBatch(const std::string& suffix, int nodes, int replicas, double progress) const
{
    const Type& t = type(suffix);
    const int epoch = epochAt(progress);
    const auto key = std::make_tuple(&t, nodes, replicas, epoch);
    {
        const std::lock_guard lock(m_bestBatch->mutex);
        const auto it = m_bestBatch->batch.find(key);
        if (it != m_bestBatch->batch.end())
            return it->second;
    }
    const int best = searchBestBatch(t, nodes, replicas, epoch);
    const std::lock_guard lock(m_bestBatch->mutex);
    m_bestBatch->batch.emplace(key, best);
    return best;
}

int GoodputModel::searchBestBatch(const Type& t, int nodes, int replicas, int epoch) const
{
    const double lo = std::max<double>(m_initBatch, static_cast<double>(t.minLocalBsz) * replicas);
    const double hi = m_maxBatch;
    int best = std::clamp(static_cast<int>(lo), m_initBatch, m_maxBatch);
    double bestGoodput = -1;
    for (int i = 0; i < 50; ++i) {
        const double b = lo >= hi ? hi : lo * std::pow(hi / lo, i / 49.0);
        const double local = b / replicas;
        int accum = static_cast<int>(std::ceil(local / t.maxLocalBsz - kEps)) - 1;
        if (replicas == 1 && local > m_initBatch + kEps)
            accum = std::max(accum, 1);
        accum = std::max(accum, 0);
        const int atomic = static_cast<int>(std::ceil(local / (accum + 1) - kEps));
        if (atomic < t.minLocalBsz || atomic > t.maxLocalBsz)
            continue;
        const int batch = replicas * atomic * (accum + 1);
        if (batch > m_maxBatch)
            continue;
        const double g =
            batch / iterationTimeS(t.fit.params, nodes, replicas, atomic, accum) * efficiencyInEpoch(batch, epoch);
        if (g > bestGoodput) {
            bestGoodput = g;
            best = batch;
        }
    }
    return best;
}

} // namespace orrery::workload
