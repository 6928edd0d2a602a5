#include "test_support.h"

#include "io/error.h"
#include "workload/gavel_trace.h"

#include <cmath>

using namespace orrery;
using namespace orrery::workload;

namespace {

const char* kCurrentRow = "ResNet-18 (batch size 64)\tpython3 main.py --batch_size 64\timage_classification/cifar10\t"
                          "--num_steps\t0\t4000\t2\t1.5\t-1.000000\t120.5\n";
const char* kMsrRow = "Transformer (batch size 128)\tcd %s/translation && python3 train.py -batch_size 128\t-step\t1\t"
                      "95121\t36.000000\t4\n";

std::string currentRow(int column, const std::string& value)
{
    std::vector<std::string> f = {"ResNet-18 (batch size 64)",
                                  "python3 main.py",
                                  "image_classification/cifar10",
                                  "--num_steps",
                                  "0",
                                  "4000",
                                  "2",
                                  "1",
                                  "-1",
                                  "120"};
    f[static_cast<std::size_t>(column)] = value;
    std::string line;
    for (std::size_t i = 0; i < f.size(); ++i)
        line += (i ? "\t" : "") + f[i];
    return line + "\n";
}

} // namespace

class TestGavelTrace : public QObject
{
    Q_OBJECT

private slots:
    void currentLayout()
    {
        const auto jobs = parseGavelTrace(std::string(kCurrentRow) + kCurrentRow, "t.trace");
        QCOMPARE(jobs.size(), std::size_t(2));
        const Job& j = jobs[0];
        QCOMPARE(j.id, std::string("0"));
        QCOMPARE(jobs[1].id, std::string("1"));
        QVERIFY(j.kind == JobKind::Fixed);
        QCOMPARE(j.jobType, std::string("ResNet-18 (batch size 64)"));
        QCOMPARE(j.scaleFactor, 2);
        QCOMPARE(j.gpus, 2);
        QCOMPARE(j.iterations, 4000.0);
        QCOMPARE(j.arrivalS, 120.5);
        QCOMPARE(j.priority, 1.5);
        QVERIFY(!j.deadlineS);
        QVERIFY(j.durationS == 0);
        QCOMPARE(*detectGavelTraceLayout(kCurrentRow, "t.trace"), GavelTraceLayout::Current);
    }

    void msrLayout()
    {
        const auto jobs = parseGavelTrace(kMsrRow, "m.trace");
        QCOMPARE(jobs.size(), std::size_t(1));
        QCOMPARE(jobs[0].jobType, std::string("Transformer (batch size 128)"));
        QCOMPARE(jobs[0].iterations, 95121.0);
        QCOMPARE(jobs[0].arrivalS, 36.0);
        QCOMPARE(jobs[0].scaleFactor, 4);
        QCOMPARE(jobs[0].gpus, 4);
        QCOMPARE(jobs[0].priority, 1.0);
        QCOMPARE(*detectGavelTraceLayout(kMsrRow, "m.trace"), GavelTraceLayout::Msr);
    }

    void quirks()
    {
        // CRLF, a CR-only line, blank lines, and no final newline.
        std::string a = kCurrentRow, b = kCurrentRow;
        a.pop_back();
        b.pop_back();
        const auto jobs = parseGavelTrace("\n" + a + "\r\n\r\n" + b + "\r" + a, "q.trace");
        QCOMPARE(jobs.size(), std::size_t(3));
        QVERIFY(!detectGavelTraceLayout("\n\n", "e.trace"));
        QVERIFY(parseGavelTrace("", "e.trace").empty());
    }

    void sloBecomesDeadline()
    {
        GavelTraceOptions o;
        o.referenceStepsPerS = [](const std::string& type, int sf) -> std::optional<double> {
            if (type == "ResNet-18 (batch size 64)" && sf == 2)
                return 10.0;
            return std::nullopt;
        };
        const auto jobs = parseGavelTrace(currentRow(8, "2.0"), "s.trace", o);
        // 4000 steps at 10 steps/s = 400 s isolated; SLO 2 -> 800 s after the arrival at 120 s.
        QCOMPARE(*jobs[0].deadlineS, 920.0);
        try {
            parseGavelTrace(currentRow(8, "1.2"), "s.trace");
            QFAIL("an SLO without throughputs must fail");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("s.trace:1: SLO: an SLO needs the isolated throughput of \"ResNet-18 (batch size "
                                 "64)\" (scale factor 2) on the reference GPU (v100) from a throughput table"));
        }
    }

    void limit()
    {
        GavelTraceOptions o;
        o.limit = 2;
        // The third row is malformed but never read.
        const auto jobs = parseGavelTrace(std::string(kCurrentRow) + kCurrentRow + "garbage\n", "l.trace", o);
        QCOMPARE(jobs.size(), std::size_t(2));
    }

    void malformedRows_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const std::string& text, const std::string& expected) {
            QTest::newRow(name) << QString::fromStdString(text) << QString::fromStdString(expected);
        };
        row("steps not a number", std::string(kCurrentRow) + currentRow(5, "abc"),
            "t.trace:2: total_steps: expected a positive integer, got \"abc\"");
        row("steps zero", currentRow(5, "0"), "t.trace:1: total_steps: expected a positive integer, got \"0\"");
        row("steps fractional", currentRow(5, "12.5"),
            "t.trace:1: total_steps: expected a positive integer, got \"12.5\"");
        row("scale factor zero", currentRow(6, "0"), "t.trace:1: scale_factor: expected a positive integer, got \"0\"");
        row("priority negative", currentRow(7, "-2"),
            "t.trace:1: priority_weight: expected a positive number, got \"-2\"");
        row("SLO text", currentRow(8, "none"), "t.trace:1: SLO: expected a number, got \"none\"");
        row("SLO zero", currentRow(8, "0"),
            "t.trace:1: SLO: expected a positive multiple of the isolated run time, or -1 for none, got 0");
        row("arrival negative", currentRow(9, "-1"),
            "t.trace:1: arrival_time: expected a non-negative number, got \"-1\"");
        row("arrival empty", currentRow(9, ""),
            "t.trace:1: arrival_time: expected a non-negative number, got an empty field");
        row("data dir flag", currentRow(4, "2"), "t.trace:1: needs_data_dir: expected 0 or 1, got \"2\"");
        row("empty job type", currentRow(0, " "),
            "t.trace:1: job_type: expected a job type such as \"ResNet-18 (batch size 64)\", got an empty field");
        row("empty command", currentRow(1, ""),
            "t.trace:1: command: expected the job's command line, got an empty field");
        row("wrong column count", "a\tb\tc\n",
            "t.trace:1: columns: expected 10 tab-separated fields (Gavel trace) or 7 (older msr trace), got 3");
        row("mixed layouts", std::string(kCurrentRow) + "\n" + kMsrRow,
            "t.trace:3: columns: expected 10 tab-separated fields like the first row, got 7");
        row("msr arrival", "T\tcmd\t-step\t1\t100\tsoon\t1\n",
            "t.trace:1: arrival_time: expected a non-negative number, got \"soon\"");
        row("msr scale", "T\tcmd\t-step\t1\t100\t5\t1.5\n",
            "t.trace:1: scale_factor: expected a positive integer, got \"1.5\"");
    }

    void malformedRows()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parseGavelTrace(text.toStdString(), "t.trace");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QCOMPARE(QString::fromStdString(e.what()), expected);
        }
    }

    void realTraces_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("layout");
        // Row counts are MANIFEST.tsv's line counts (these files have no header).
        QTest::newRow("poisson") << "gavel/traces/poisson1000_1gpu_lam150_seed0.trace" << 1000
                                 << int(GavelTraceLayout::Current);
        QTest::newRow("0e4a51") << "gavel/traces/msr_seed0_0e4a51.trace" << 1181 << int(GavelTraceLayout::Msr);
        QTest::newRow("11cb48") << "gavel/traces/msr_seed0_11cb48.trace" << 2000 << int(GavelTraceLayout::Msr);
        QTest::newRow("6214e9") << "gavel/traces/msr_seed0_6214e9.trace" << 2000 << int(GavelTraceLayout::Msr);
        QTest::newRow("ee9e8c") << "gavel/traces/msr_seed0_ee9e8c.trace" << 2000 << int(GavelTraceLayout::Msr);
    }

    void realTraces()
    {
        QFETCH(QString, file);
        QFETCH(int, rows);
        QFETCH(int, layout);
        const std::string path = test::sharedDataPath(file.toStdString());
        if (path.empty())
            QSKIP("shared data not present");
        const auto jobs = readGavelTrace(path);
        QCOMPARE(static_cast<int>(jobs.size()), rows);
        for (const auto& j : jobs) {
            QVERIFY(j.iterations >= 1);
            QVERIFY(j.gpus == j.scaleFactor);
            QVERIFY(!j.deadlineS);
        }
        if (layout == int(GavelTraceLayout::Current)) {
            // Single-GPU jobs with Poisson arrivals, mean gap 150 s: the first row arrives at 0.
            QCOMPARE(jobs.front().jobType, std::string("Transformer (batch size 128)"));
            QCOMPARE(jobs.front().iterations, 19605.0);
            QCOMPARE(jobs.front().arrivalS, 0.0);
            double maxArrival = 0;
            for (const auto& j : jobs) {
                QCOMPARE(j.gpus, 1);
                maxArrival = std::max(maxArrival, j.arrivalS);
            }
            const double meanGap = maxArrival / (rows - 1);
            QVERIFY2(meanGap > 120 && meanGap < 180, qPrintable(QString::number(meanGap)));
        } else {
            int multi = 0;
            for (const auto& j : jobs)
                multi += j.gpus > 1;
            QVERIFY(multi > 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestGavelTrace)
#include "test_gavel_trace.moc"
