// Serving workloads: Gamma arrivals (rate, CV, seeds), power-law splits, and the MAF1-schema trace reader
// with its window fit; bad traces are refused naming file, line and column.
#include "test_support.h"

#include "io/error.h"
#include "serve/arrivals.h"
#include "serve/maf_trace.h"

#include <cmath>
#include <fstream>
#include <numeric>

using namespace orrery;
using namespace orrery::serve;
using orrery::test::errorOf;

namespace {

struct GapStats
{
    double mean = 0;
    double cv = 0;
};

GapStats gapStats(const std::vector<double>& t)
{
    std::vector<double> gaps;
    for (std::size_t i = 1; i < t.size(); ++i)
        gaps.push_back(t[i] - t[i - 1]);
    const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size());
    double var = 0;
    for (double g : gaps)
        var += (g - mean) * (g - mean);
    var /= double(gaps.size());
    return {mean, std::sqrt(var) / mean};
}

std::string header(int minutes)
{
    std::string h = "HashOwner,HashApp,HashFunction,Trigger";
    for (int m = 1; m <= minutes; ++m)
        h += "," + std::to_string(m);
    return h + "\n";
}

} // namespace

class TestServeWorkload : public QObject
{
    Q_OBJECT

private slots:
    void gammaArrivalsHaveTheirRateAndCv()
    {
        for (const auto& [rate, cv] : std::vector<std::pair<double, double>>{{10, 1}, {4, 3}, {2, 0.5}, {20, 6}}) {
            const auto t = gammaArrivals({rate, cv}, 0, 200000 / rate, 5);
            const GapStats s = gapStats(t);
            QVERIFY2(std::abs(s.mean * rate - 1) < 0.03,
                     qPrintable(QString("rate %1 cv %2: mean gap %3").arg(rate).arg(cv).arg(s.mean)));
            QVERIFY2(std::abs(s.cv / cv - 1) < 0.05, qPrintable(QString("cv %1 measured %2").arg(cv).arg(s.cv)));
        }
        // CV 0: evenly spaced.
        const auto even = gammaArrivals({2, 0}, 0, 10, 1);
        QCOMPARE(even.size(), std::size_t(19)); // 0.5, 1.0, ..., 9.5
        QCOMPARE(even.front(), 0.5);
        // Same seed, same arrivals; another seed, others.
        QCOMPARE(gammaArrivals({3, 2}, 0, 100, 9), gammaArrivals({3, 2}, 0, 100, 9));
        QVERIFY(gammaArrivals({3, 2}, 0, 100, 9) != gammaArrivals({3, 2}, 0, 100, 10));
        QVERIFY(errorOf([] { gammaArrivals({-1, 1}, 0, 10, 1); }).find("rate") != std::string::npos);
        QVERIFY(errorOf([] { gammaArrivals({1, -1}, 0, 10, 1); }).find("cv") != std::string::npos);
    }

    void workloadsAreSortedAndPerModelStreamsIndependent()
    {
        const Workload two = gammaWorkload({{2, 1}, {1, 3}}, 500, 3);
        QCOMPARE(two.models, 2);
        QVERIFY(std::is_sorted(two.requests.begin(), two.requests.end(),
                               [](const Request& a, const Request& b) { return a.arrivalS < b.arrivalS; }));
        // Adding a third model leaves the first two models' arrivals alone.
        const Workload three = gammaWorkload({{2, 1}, {1, 3}, {5, 1}}, 500, 3);
        std::vector<double> a, b;
        for (const auto& r : two.requests)
            if (r.model == 1)
                a.push_back(r.arrivalS);
        for (const auto& r : three.requests)
            if (r.model == 1)
                b.push_back(r.arrivalS);
        QCOMPARE(a, b);
        const Workload slice = three.slice(100, 200);
        for (const auto& r : slice.requests)
            QVERIFY(r.arrivalS >= 100 && r.arrivalS < 200);
    }

    void powerLawSplit()
    {
        const auto even = powerLawRates(8, 4, 0);
        QCOMPARE(even, (std::vector<double>{2, 2, 2, 2}));
        const auto skew = powerLawRates(8, 4, 0.5);
        QVERIFY(std::abs(std::accumulate(skew.begin(), skew.end(), 0.0) - 8) < 1e-12);
        QVERIFY(std::abs(skew[0] / skew[3] - 2.0) < 1e-12); // (1/4)^-0.5
        QVERIFY(errorOf([] { powerLawRates(1, 0, 1); }).find("at least one model") != std::string::npos);
        QVERIFY(errorOf([] { powerLawRates(1, 2, -1); }).find("exponent") != std::string::npos);
    }

    void readsTheSyntheticMafTrace()
    {
        const MafTrace trace = readMafTrace(test::sourcePath("data/serving/maf1_synthetic.csv"));
        QCOMPARE(trace.functions.size(), std::size_t(8));
        QCOMPARE(trace.minutes, 120);
        const auto windows = fitMafWindows(trace, 4, {60, 1, 1});
        QCOMPARE(windows.size(), std::size_t(2));
        QCOMPARE(windows[0].size(), std::size_t(4));
        // Model 0 takes functions 0 and 4: its fitted rate is their mean per-minute count over 60.
        double sum = 0;
        for (int m = 0; m < 60; ++m)
            sum += trace.counts[0][static_cast<std::size_t>(m)] + trace.counts[4][static_cast<std::size_t>(m)];
        QVERIFY(std::abs(windows[0][0].rate - sum / 60 / 60) < 1e-12);
        // The bursty functions (odd rows) make their models' CV larger than the steady ones'.
        QVERIFY(windows[0][1].cv > windows[0][0].cv);
        // Scaling.
        const auto scaled = fitMafWindows(trace, 4, {60, 2, 3});
        QVERIFY(std::abs(scaled[0][1].rate - 2 * windows[0][1].rate) < 1e-12);
        QVERIFY(std::abs(scaled[0][1].cv - 3 * windows[0][1].cv) < 1e-12);
        const Workload w = windowedGammaWorkload(windows, 3600, 1);
        QCOMPARE(w.models, 4);
        QCOMPARE(w.durationS, 7200.0);
    }

    void windowFitOfKnownCounts()
    {
        // Counts 0, 2, 0, 2 per minute: mean 1 (rate 1/60 per s), variance 1, CV² = var / mean = 1.
        const MafTrace t = parseMafTrace(header(4) + "o,a,f,http,0,2,0,2\n", "t.csv");
        const auto w = fitMafWindows(t, 1, {4, 1, 1});
        QVERIFY(std::abs(w[0][0].rate - 1.0 / 60) < 1e-15);
        QVERIFY(std::abs(w[0][0].cv - 1.0) < 1e-12);
        // A last window shorter than the others is fitted on its own minutes.
        const auto w3 = fitMafWindows(t, 1, {3, 1, 1});
        QCOMPARE(w3.size(), std::size_t(2));
        QVERIFY(std::abs(w3[1][0].rate - 2.0 / 60) < 1e-15);
    }

    void badMafTracesAreRefused()
    {
        const auto err = [](const std::string& text) {
            return QString::fromStdString(errorOf([&] { parseMafTrace(text, "maf.csv"); }));
        };
        QCOMPARE(
            err("HashOwner,HashApp,Trigger,1,2\no,a,http,1,2\n"),
            QString("maf.csv:1: header: missing column \"HashFunction\" (columns: HashOwner, HashApp, Trigger, 1, 2)"));
        QCOMPARE(err("HashFunction,1,3\nf,1,2\n"),
                 QString("maf.csv:1: header: minute column \"3\" out of order (expected \"2\")"));
        QCOMPARE(err("HashFunction,Trigger\nf,http\n"),
                 QString("maf.csv:1: header: no minute columns (expected \"1\", \"2\", ... after HashFunction)"));
        QCOMPARE(err(header(3) + "o,a,f,http,1,2,3\no,a,g,http,1,x,3\n"),
                 QString("maf.csv:3: 2: expected a non-negative integer, got \"x\""));
        QCOMPARE(err(header(3) + "o,a,f,http,1,-2,3\n"),
                 QString("maf.csv:2: 2: expected a non-negative integer, got \"-2\""));
        QCOMPARE(err(header(3) + "o,a,f,http,1,2\n"),
                 QString("maf.csv:2: 3: missing value (the row has 6 fields, the header 7)"));
        QCOMPARE(err(header(2) + "o,a,,http,1,2\n"), QString("maf.csv:2: HashFunction: missing function name"));
        QCOMPARE(err(header(2)), QString("maf.csv: no functions (the file has a header and no rows)"));
        QVERIFY(errorOf([] { readMafTrace("/nonexistent/maf.csv"); }).find("maf.csv") != std::string::npos);
        const MafTrace ok = parseMafTrace(header(2) + "o,a,f,http,1,2\n", "t.csv");
        QVERIFY(errorOf([&] { fitMafWindows(ok, 0, {}); }).find("at least one model") != std::string::npos);
        QVERIFY(errorOf([&] { fitMafWindows(ok, 1, {0, 1, 1}); }).find("window") != std::string::npos);
    }

    void readsTheSyntheticMaf2Trace()
    {
        const std::string path = test::sourcePath("data/serving/maf2_synthetic.csv");
        const MafTrace trace = readMafTrace(path); // told from MAF1 by its header
        QCOMPARE(trace.functions.size(), std::size_t(6));
        QCOMPARE(trace.minutes, 120);
        // Every invocation counted once, in the minute it started.
        std::ifstream in(path);
        std::string line;
        long long rows = -1; // the header
        while (std::getline(in, line))
            ++rows;
        double total = 0, first = 0;
        for (std::size_t f = 0; f < trace.counts.size(); ++f)
            for (double c : trace.counts[f]) {
                total += c;
                if (f == 0)
                    first += c;
            }
        QCOMPARE(static_cast<long long>(total), rows);
        // Skewed, as MAF2 is: the first function takes most of the invocations, in bursts.
        QVERIFY(first > total / 2);
        const auto windows = fitMafWindows(trace, 2, {60, 1, 1});
        QVERIFY(windows[0][0].cv > 2 * windows[0][1].cv);
        // A hand-made file: starts at 59.5 s (minute 0) and 60 s (minute 1); function g first seen second.
        const MafTrace small =
            parseMaf2Trace("app,func,end_timestamp,duration\na,f,60.5,1\na,g,61,1\na,f,200,0\n", "t.csv");
        QCOMPARE(small.functions, (std::vector<std::string>{"f", "g"}));
        QCOMPARE(small.minutes, 4);
        QCOMPARE(small.counts[0], (std::vector<double>{1, 0, 0, 1}));
        QCOMPARE(small.counts[1], (std::vector<double>{0, 1, 0, 0}));
    }

    void badMaf2TracesAreRefused()
    {
        const auto err = [](const std::string& body) {
            return QString::fromStdString(
                errorOf([&] { parseMaf2Trace("app,func,end_timestamp,duration\n" + body, "maf2.csv"); }));
        };
        QCOMPARE(err("a,f,10,x\n"), QString("maf2.csv:2: duration: expected a non-negative number, got \"x\""));
        QCOMPARE(err("a,f,10,1\na,f,-3,1\n"),
                 QString("maf2.csv:3: end_timestamp: expected a non-negative number, got \"-3\""));
        QCOMPARE(err("a,f,10,12\n"), QString("maf2.csv:2: duration: 12 s is longer than the end time 10 s: the "
                                             "invocation would start before the trace"));
        QCOMPARE(err("a,,10,1\n"), QString("maf2.csv:2: func: missing function name"));
        QCOMPARE(err(""), QString("maf2.csv: no invocations (the file has a header and no rows)"));
        QVERIFY(err("a,f,9999999,1\n").contains("past the 44640-minute limit"));
        QVERIFY(QString::fromStdString(errorOf([] {
                    parseMaf2Trace("app,func,end\na,f,1\n", "maf2.csv");
                })).startsWith("maf2.csv:1: header: missing column \"end_timestamp\""));
    }
};

QTEST_GUILESS_MAIN(TestServeWorkload)
#include "test_serve_workload.moc"
