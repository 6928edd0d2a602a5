// The Slurm backend of sweeps for real (docs/sweeps.md, "Slurm"): a one-node Slurm cluster from Debian's packages
// (slurmctld, slurmd, munge) started in a temporary directory on the loopback address, a sweep submitted to it as
// an array, followed with `sweep status`, collected, and compared point by point with a local run of the same spec.
// Skipped, saying why, where the packages are absent (scripts/setup installs them) or the daemons do not start.
#include "test_support.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace orrery;
using nlohmann::json;
using orrery::test::cliPath;

namespace {

std::string findProgram(const std::string& name)
{
    for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin"}) {
        const std::string p = std::string(dir) + "/" + name;
        if (::access(p.c_str(), X_OK) == 0)
            return p;
    }
    return {};
}

/** A TCP port free on the loopback address now (the kernel's choice), for the daemons to listen on. */
int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(fd);
    return port;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

class TestCliSweepSlurm : public QObject
{
    Q_OBJECT
private slots:
    void init()
    {
        for (const char* p : {"slurmctld", "slurmd", "munged", "sbatch", "squeue", "sinfo", "scontrol"})
            if (findProgram(p).empty())
                QSKIP(fmt::format("Slurm is not installed ({} not found; scripts/setup installs slurmctld, slurmd, "
                                  "slurm-client and munge)",
                                  p)
                          .c_str());
        if (::geteuid() != 0)
            QSKIP("a one-node Slurm cluster needs root here (slurmd launches the jobs)");
    }

    void sweepOnAOneNodeCluster()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string t = dir.path().toStdString();
        ::chmod(t.c_str(), 0700);
        for (const char* sub : {"/state", "/spool", "/munge"})
            std::filesystem::create_directories(t + sub);
        ::chmod((t + "/munge").c_str(), 0700);
        {
            std::random_device rd;
            std::ofstream key(t + "/munge/munge.key", std::ios::binary);
            for (int i = 0; i < 1024; ++i)
                key.put(static_cast<char>(rd() & 0xff));
        }
        ::chmod((t + "/munge/munge.key").c_str(), 0400);
        const std::string socket = t + "/munge/munge.socket";
        const std::string conf = t + "/slurm.conf";
        std::ofstream(conf) << fmt::format(R"(ClusterName=orrerytest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={}
SlurmdPort={}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={}
CredType=cred/munge
StateSaveLocation={}/state
SlurmdSpoolDir={}/spool
SlurmctldPidFile={}/slurmctld.pid
SlurmdPidFile={}/slurmd.pid
SlurmctldLogFile={}/slurmctld.log
SlurmdLogFile={}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
)",
                                           freePort(), freePort(), socket, t, t, t, t, t, t);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SLURM_CONF", QString::fromStdString(conf));
        qputenv("SLURM_CONF", conf.c_str()); // for the orrery-cli runs below (sbatch, squeue)

        struct Daemon
        {
            std::unique_ptr<QProcess> p = std::make_unique<QProcess>();
            ~Daemon()
            {
                if (p->state() != QProcess::NotRunning) {
                    p->terminate();
                    if (!p->waitForFinished(5000)) {
                        p->kill();
                        p->waitForFinished(5000);
                    }
                }
            }
        };
        const auto start = [&](Daemon& d, const std::string& program, const QStringList& args) {
            d.p->setProcessEnvironment(env);
            d.p->setProcessChannelMode(QProcess::MergedChannels);
            d.p->start(QString::fromStdString(findProgram(program)), args);
            return d.p->waitForStarted(5000);
        };
        // Declared in this order, destroyed in the reverse: slurmd, slurmctld, then munged.
        Daemon munged, slurmctld, slurmd;
        QVERIFY(start(munged, "munged",
                      {"-F", "--force", QString::fromStdString("--key-file=" + t + "/munge/munge.key"),
                       QString::fromStdString("--socket=" + socket),
                       QString::fromStdString("--pid-file=" + t + "/munge/munged.pid"),
                       QString::fromStdString("--log-file=" + t + "/munge/munged.log"),
                       QString::fromStdString("--seed-file=" + t + "/munge/munged.seed")}));
        QElapsedTimer clock;
        clock.start();
        while (!std::filesystem::exists(socket) && clock.elapsed() < 10000 && munged.p->state() == QProcess::Running)
            QThread::msleep(50);
        if (!std::filesystem::exists(socket))
            QSKIP(("munged did not start: " + munged.p->readAll().toStdString() + readAll(t + "/munge/munged.log"))
                      .c_str());
        QVERIFY(start(slurmctld, "slurmctld", {"-D", "-i", "-f", QString::fromStdString(conf)}));
        QVERIFY(start(slurmd, "slurmd", {"-D", "-N", "localhost", "-f", QString::fromStdString(conf)}));
        // Up when the node is idle.
        std::string state;
        while (clock.elapsed() < 30000) {
            QProcess sinfo;
            sinfo.setProcessEnvironment(env);
            sinfo.start(QString::fromStdString(findProgram("sinfo")), {"-h", "-o", "%t"});
            sinfo.waitForFinished(5000);
            state = sinfo.readAllStandardOutput().trimmed().toStdString();
            if (state == "idle")
                break;
            QThread::msleep(200);
        }
        if (state != "idle")
            QSKIP(("the one-node Slurm cluster did not come up (node state \"" + state +
                   "\"): slurmctld: " + readAll(t + "/slurmctld.log").substr(0, 2000) +
                   " slurmd: " + readAll(t + "/slurmd.log").substr(0, 2000))
                      .c_str());

        // A small sweep: 3 policies x 2 seeds on 12 jobs of the default scenario, 2 points per array task.
        const std::string spec = t + "/spec.json";
        std::ofstream(spec) << json{{"format", "orrery-sweep"},
                                    {"version", 1},
                                    {"name", "slurm-ci"},
                                    {"axes",
                                     {{{"kind", "job_limit"}, {"values", {12}}},
                                      {{"kind", "policy"}, {"values", {"fifo", "sjf", "tiresias"}}},
                                      {{"kind", "seed"}, {"values", {0, 1}}}}}}
                                   .dump();
        const std::string sub = t + "/submission";
        auto r = test::runCommand({cliPath(), "sweep", "submit", spec, "--slurm", "--dir", sub, "--points-per-task",
                                   "2", "--partition", "debug", "--time", "5:00"});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
        QVERIFY2(r.out.find("submitted as job ") != std::string::npos, r.out.c_str());
        json status;
        while (clock.elapsed() < 50000) {
            r = test::runCommand({cliPath(), "sweep", "status", "--dir", sub, "--json"});
            QVERIFY2(r.exitCode == 0, (r.out + r.err + readAll(t + "/slurmctld.log")).c_str());
            status = json::parse(r.out);
            bool done = true;
            for (const auto& task : status["tasks"])
                done = done && task["state"] == "done";
            if (done)
                break;
            QThread::msleep(300);
        }
        QVERIFY2(status["stored"].get<int>() == 6,
                 (status.dump(1) + readAll(t + "/slurmd.log").substr(0, 3000)).c_str());
        const std::string collected = t + "/collected.sqlite", local = t + "/local.sqlite";
        r = test::runCommand({cliPath(), "sweep", "collect", "--dir", sub, "--db", collected});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
        QCOMPARE(test::runCommand({cliPath(), "sweep", "run", spec, "--db", local, "--no-estimate"}).exitCode, 0);
        const auto results = [](const std::string& db) {
            const auto out = test::runCommand({cliPath(), "sweep", "results", "--db", db, "--format", "json"});
            std::map<std::string, std::pair<double, double>> m;
            const json doc = json::parse(out.out);
            for (const auto& p : doc["points"])
                m[p["point_key"].get<std::string>()] = {p["avg_jct_s"].get<double>(), p["makespan_s"].get<double>()};
            return m;
        };
        const auto a = results(collected), b = results(local);
        QVERIFY2(a.size() == 6, (r.out + test::runCommand({cliPath(), "sweep", "results", "--db", collected}).out +
                                 test::runCommand({cliPath(), "sweep", "results", "--db", collected}).err)
                                    .c_str());
        QVERIFY(a == b);
        // Each task's log is where status says it is.
        for (const auto& task : status["tasks"])
            QVERIFY2(std::filesystem::exists(task["log"].get<std::string>()), task.dump().c_str());
        QProcess::execute(QString::fromStdString(findProgram("scontrol")), {"shutdown"});
    }
};

QTEST_GUILESS_MAIN(TestCliSweepSlurm)
#include "test_cli_sweep_slurm.moc"
