#include "sweep_slurm.h"

#include "cli.h"
#include "process.h"
#include "run_db.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "store/run_merge.h"
#include "store/sweep_records.h"
#include "store/timestamp.h"
#include "sweep/shard.h"
#include "sweep/slurm_script.h"
#include "sweep/slurm_submission.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"
#include "util/text.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

namespace orrery::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string absolutePath(const std::string& p)
{
    return sweep::absoluteSubmissionPath(p);
}

void writeText(const std::string& path, const std::string& text)
{
    sweep::writeFileAtomically(path, text);
}

json readJsonFile(const std::string& path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw Error(path, "", "missing: is this the directory of an `orrery-cli sweep submit`?");
    return io::parseJson(util::readFile(path), path);
}

/** The orrery-cli running now, so that tasks run the same build. */
std::string selfPath()
{
    std::error_code ec;
    const auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("orrery-cli") : p.string();
}

struct SubmitArgs
{
    std::string spec;
    std::string dir;
    bool slurm = false;
    std::string partition;
    std::string time;
    std::size_t arrayMax = 0;
    std::size_t pointsPerTask = 0;
    int cpusPerTask = 1;
    bool noSubmit = false;
    bool resubmit = false;
    std::vector<std::size_t> tasks;
};

/** Submits the script for `tasks` (all when empty); returns the array job id. */
std::string sbatch(const std::string& dir, const std::vector<std::size_t>& tasks, std::size_t arrayMax)
{
    std::vector<std::string> argv = {"sbatch", "--parsable", "--output=" + dir + "/logs/%A_%a.out"};
    if (!tasks.empty())
        argv.push_back("--array=" + sweep::arraySpec(tasks, arrayMax));
    argv.push_back(dir + "/sweep.sbatch");
    const auto r = runProcess(argv);
    if (r.exitCode != 0)
        throw std::runtime_error(fmt::format("sbatch failed (exit {}): {}", r.exitCode, r.output));
    std::string id = r.output.substr(0, r.output.find_first_of(";\n"));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("sbatch answered no job id: " + r.output);
    return id;
}

struct TaskStatus
{
    std::size_t task = 0;
    std::string state; ///< done, failed, pending, running, lost
    std::string detail;
    std::string jobId;
    std::string log;
    std::size_t points = 0, stored = 0;
};

std::vector<TaskStatus> taskStatuses(const std::string& dir, const json& submission, const json& points)
{
    const std::size_t tasks = submission.at("tasks").get<std::size_t>();
    const std::string sweepName = submission.at("sweep").get<std::string>();
    std::vector<TaskStatus> out(tasks);
    for (std::size_t i = 0; i < tasks; ++i)
        out[i].task = i;
    // The files are the submission's own, but may have been edited or damaged: a task number out of range is an
    // error naming the file, not an out-of-bounds write.
    const auto taskOf = [&](const json& v, const std::string& file) {
        const auto task = v.get<std::size_t>();
        if (task >= tasks)
            throw Error(file, "task", fmt::format("task {} in a submission of {} tasks", task, tasks));
        return task;
    };
    for (const auto& p : points)
        ++out[taskOf(p.at("task"), dir + "/points.json")].points;
    // Which job ran each task last: later submissions (resubmits) win.
    std::vector<std::string> jobIds;
    for (const auto& j : submission.at("jobs")) {
        const std::string id = j.at("job_id").get<std::string>();
        jobIds.push_back(id);
        for (const auto& t : j.at("tasks"))
            out[taskOf(t, dir + "/submission.json")].jobId = id;
    }
    std::map<std::pair<std::string, std::size_t>, sweep::SlurmTaskState> queued, accounted;
    if (!jobIds.empty() && programExists("squeue")) {
        const auto r =
            runProcess({"squeue", "-h", "-r", "-o", "%i %t", "-j", fmt::format("{}", fmt::join(jobIds, ","))});
        if (r.exitCode == 0)
            for (auto& s : sweep::parseSqueue(r.output))
                queued[{s.jobId, s.task}] = s;
    }
    if (!jobIds.empty() && programExists("sacct")) {
        const auto r = runProcess(
            {"sacct", "-n", "-P", "-X", "-o", "JobID,State,ExitCode", "-j", fmt::format("{}", fmt::join(jobIds, ","))});
        if (r.exitCode == 0) // fails where the cluster keeps no accounting: then the status files decide alone
            for (auto& s : sweep::parseSacct(r.output))
                accounted[{s.jobId, s.task}] = s;
    }
    for (auto& t : out) {
        const std::string rcFile = fmt::format("{}/status/task-{}.rc", dir, t.task);
        std::error_code ec;
        std::string rcJob;
        int rc = -1;
        if (fs::exists(rcFile, ec)) {
            std::ifstream in(rcFile);
            in >> rc >> rcJob;
        }
        const std::string job = !rcJob.empty() && rcJob != "0" ? rcJob : t.jobId;
        t.log = fmt::format("{}/logs/{}_{}.out", dir, job.empty() ? "JOBID" : job, t.task);
        const auto q = queued.find({t.jobId, t.task});
        const auto a = accounted.find({t.jobId, t.task});
        const std::string shard = fmt::format("{}/shards/shard-{}.sqlite", dir, t.task);
        if (fs::exists(shard, ec)) {
            try {
                auto store = openRunStoreForReading(shard);
                t.stored = store::completedPointKeys(store.connection(), sweepName).size();
            } catch (const std::exception&) {
                // Being created, or damaged: its task's state says which.
            }
        }
        if (q != queued.end()) {
            t.state = q->second.state == "PD" ? "pending" : "running";
            t.detail = q->second.state;
            if (!rcJob.empty() && rcJob == t.jobId)
                t.state = "running";
        } else if (rc == 0 && (rcJob == t.jobId || t.jobId.empty() || rcJob.empty())) {
            t.state = "done";
        } else if (rc > 0 && (rcJob == t.jobId || t.jobId.empty())) {
            t.state = "failed";
            t.detail = fmt::format("exit status {}", rc);
        } else if (a != accounted.end()) {
            t.state = "failed"; // ended without writing its status file: killed, timed out, out of memory
            t.detail = fmt::format("{} (exit {})", a->second.state, a->second.exitCode);
        } else if (t.jobId.empty()) {
            t.state = "unsubmitted";
        } else {
            t.state = "failed";
            t.detail = "not queued and no exit status (killed before it could write one?)";
        }
        t.jobId = job;
    }
    return out;
}

void runSubmit(const SubmitArgs& args)
{
    if (!args.slurm)
        throw Error("", "--slurm", "name the backend: --slurm (the only one so far)");
    const std::string dir = absolutePath(args.dir);
    sweep::checkSubmissionPath(dir);
    if (args.resubmit) {
        json submission = readJsonFile(dir + "/submission.json");
        const json points = readJsonFile(dir + "/points.json");
        std::vector<std::size_t> tasks = args.tasks;
        if (tasks.empty())
            for (const auto& t : taskStatuses(dir, submission, points))
                if (t.state == "failed")
                    tasks.push_back(t.task);
        if (tasks.empty()) {
            std::cout << "no failed task to resubmit\n";
            return;
        }
        for (const auto t : tasks)
            if (t >= submission.at("tasks").get<std::size_t>())
                throw Error(dir, "--tasks",
                            fmt::format("task {} does not exist (the array has {} tasks, from 0)", t,
                                        submission.at("tasks").get<std::size_t>()));
        for (const auto t : tasks) // a stale status would make the resubmitted task look ended
            fs::remove(fmt::format("{}/status/task-{}.rc", dir, t));
        const std::string id = sbatch(dir, tasks, submission.value("array_max", std::size_t{0}));
        submission["jobs"].push_back({{"job_id", id}, {"tasks", tasks}, {"submitted_at", store::utcNowIso()}});
        writeText(dir + "/submission.json", submission.dump(2) + "\n");
        std::cout << fmt::format("resubmitted task{} {} as job {}\n", tasks.size() == 1 ? "" : "s",
                                 sweep::arraySpec(tasks, 0), id);
        return;
    }
    if (args.spec.empty())
        throw Error("", "spec", "give the sweep spec (or --resubmit to resubmit tasks of an earlier submission)");
    sweep::checkSubmissionDir(dir);
    const sweep::SweepSpec spec = sweep::loadSweepSpec(args.spec);
    const sweep::SweepPlan plan = sweep::resolveSweep(spec);
    sweep::SlurmSubmissionOptions options;
    options.dir = dir;
    options.cli = selfPath();
    options.specFile = args.spec;
    options.partition = args.partition;
    options.time = args.time;
    options.arrayMax = args.arrayMax;
    options.pointsPerTask = args.pointsPerTask;
    options.cpusPerTask = args.cpusPerTask;
    const sweep::SlurmSubmission written = sweep::writeSlurmSubmission(plan, options);
    json submission = written.submission;
    const std::size_t n = written.points, tasks = written.tasks, perTask = written.pointsPerTask;
    std::cout << fmt::format("sweep {}: {} points in {} array task{} of at most {} point{}; wrote {}/sweep.sbatch\n",
                             spec.name, n, tasks, tasks == 1 ? "" : "s", perTask, perTask == 1 ? "" : "s", dir);
    if (args.noSubmit) {
        std::cout << fmt::format("not submitted (--no-submit); submit with: sbatch --output={}/logs/%A_%a.out "
                                 "{}/sweep.sbatch, then record nothing: sweep status reads the status files\n",
                                 dir, dir);
        return;
    }
    std::vector<std::size_t> all(tasks);
    for (std::size_t t = 0; t < tasks; ++t)
        all[t] = t;
    const std::string id = sbatch(dir, {}, args.arrayMax);
    submission["jobs"].push_back({{"job_id", id}, {"tasks", all}, {"submitted_at", store::utcNowIso()}});
    writeText(dir + "/submission.json", submission.dump(2) + "\n");
    std::cout << fmt::format("submitted as job {}; follow it with: orrery-cli sweep status --dir {}\n", id, dir);
}

struct StatusArgs
{
    std::string dir;
    bool json = false;
};

void runStatus(const StatusArgs& args)
{
    const std::string dir = absolutePath(args.dir);
    const json submission = readJsonFile(dir + "/submission.json");
    const json points = readJsonFile(dir + "/points.json");
    const auto statuses = taskStatuses(dir, submission, points);
    std::map<std::string, std::size_t> counts;
    std::size_t stored = 0;
    for (const auto& t : statuses) {
        ++counts[t.state];
        stored += t.stored;
    }
    const std::size_t failed = counts["failed"];
    if (args.json) {
        json tasks = json::array();
        for (const auto& t : statuses)
            tasks.push_back({{"task", t.task},
                             {"state", t.state},
                             {"detail", t.detail},
                             {"job_id", t.jobId},
                             {"log", t.log},
                             {"points", t.points},
                             {"stored", t.stored}});
        printJson({{"sweep", submission.at("sweep")},
                   {"points", submission.at("points")},
                   {"stored", stored},
                   {"tasks", tasks}});
    } else {
        std::vector<std::string> parts;
        for (const auto& [state, count] : counts)
            if (count > 0)
                parts.push_back(fmt::format("{} {}", count, state));
        std::cout << fmt::format("sweep {}: {} of {} points stored in shards; tasks: {}\n",
                                 submission.at("sweep").get<std::string>(), stored,
                                 submission.at("points").get<std::size_t>(), fmt::join(parts, ", "));
        std::vector<std::size_t> failedTasks;
        for (const auto& t : statuses)
            if (t.state == "failed") {
                failedTasks.push_back(t.task);
                std::cout << fmt::format("  task {} failed: {}; job {}_{}, log {}\n", t.task, t.detail, t.jobId, t.task,
                                         t.log);
            }
        if (!failedTasks.empty())
            std::cout << fmt::format("resubmit them alone with: orrery-cli sweep submit --slurm --resubmit --dir {} "
                                     "--tasks {}\n",
                                     sweep::shellQuote(dir), fmt::join(failedTasks, ","));
    }
    if (failed > 0)
        throw ExitRequest{Failure};
}

struct CollectArgs
{
    std::string dir;
    std::string db;
};

void runCollect(const CollectArgs& args)
{
    const std::string dir = absolutePath(args.dir);
    const json submission = readJsonFile(dir + "/submission.json");
    const json points = readJsonFile(dir + "/points.json");
    const std::size_t tasks = submission.at("tasks").get<std::size_t>();
    std::vector<std::string> shards;
    for (std::size_t t = 0; t < tasks; ++t) {
        const std::string shard = fmt::format("{}/shards/shard-{}.sqlite", dir, t);
        std::error_code ec;
        if (fs::exists(shard, ec) && fs::file_size(shard, ec) > 0)
            shards.push_back(shard);
    }
    auto db = openRunStoreForWriting(args.db);
    const auto report = store::mergeRunStores(db, shards);
    const std::string sweepName = submission.at("sweep").get<std::string>();
    const auto done = store::completedPointKeys(db.connection(), sweepName);
    std::map<std::size_t, std::size_t> missing; // task -> points
    for (const auto& p : points)
        if (!done.count(p.at("key").get<std::string>()))
            ++missing[p.at("task").get<std::size_t>()];
    std::size_t missingPoints = 0;
    for (const auto& [t, m] : missing)
        missingPoints += m;
    std::cout << fmt::format("merged {} shard{} into {}: {} run{} copied, {} already there; {} of {} points stored\n",
                             shards.size(), shards.size() == 1 ? "" : "s", db.path(), report.copied(),
                             report.copied() == 1 ? "" : "s", report.alreadyPresent(), points.size() - missingPoints,
                             points.size());
    if (missingPoints > 0) {
        std::vector<std::string> parts;
        for (const auto& [t, m] : missing)
            parts.push_back(fmt::format("{} ({} point{})", t, m, m == 1 ? "" : "s"));
        std::cout << fmt::format("missing from tasks {}; see orrery-cli sweep status --dir {}\n",
                                 fmt::join(parts, ", "), sweep::shellQuote(dir));
        throw ExitRequest{Failure};
    }
}

} // namespace

void registerSweepSlurmCommands(CLI::App* sweep)
{
    auto sa = std::make_shared<SubmitArgs>();
    auto* submit = sweep->add_subcommand(
        "submit", "Write a sweep's points and an sbatch --array script into a directory, and submit it to Slurm");
    submit->add_option("spec", sa->spec, "Sweep spec (JSON, docs/sweeps.md); not with --resubmit");
    submit->add_flag("--slurm", sa->slurm, "Submit to Slurm (sbatch); required")->required();
    submit
        ->add_option("--dir", sa->dir,
                     "Submission directory on the shared file system (spec, points, script, "
                     "shards/, logs/, status/)")
        ->required();
    submit->add_option("--partition", sa->partition, "Slurm partition (default: the cluster's default)");
    submit->add_option("--time", sa->time, "Time limit per array task (e.g. 2:00:00)");
    submit->add_option("--array-max", sa->arrayMax, "Most array tasks running at once (sbatch --array=...%N)");
    submit
        ->add_option("--points-per-task", sa->pointsPerTask,
                     "Points per array task (default: as few as keep the array within 1,000 tasks)")
        ->check(CLI::PositiveNumber);
    submit->add_option("--cpus-per-task", sa->cpusPerTask, "CPUs per task, and the points each task runs at once")
        ->check(CLI::PositiveNumber);
    submit->add_flag("--no-submit", sa->noSubmit, "Write the files but do not call sbatch");
    submit->add_flag("--resubmit", sa->resubmit,
                     "Submit tasks of the submission in --dir again (default: its failed ones)");
    submit->add_option("--tasks", sa->tasks, "With --resubmit: which tasks (comma-separated ids, from 0)")
        ->delimiter(',');
    submit->callback([sa] { runSubmit(*sa); });

    auto st = std::make_shared<StatusArgs>();
    auto* status = sweep->add_subcommand(
        "status", "Follow a Slurm submission: per array task pending, running, done or failed (job id, log path)");
    status->add_option("--dir", st->dir, "Submission directory")->required();
    status->add_flag("--json", st->json, "Machine-readable output");
    status->callback([st] { runStatus(*st); });

    auto ca = std::make_shared<CollectArgs>();
    auto* collect = sweep->add_subcommand(
        "collect", "Merge a Slurm submission's shard stores into one run store; says which points are missing");
    collect->add_option("--dir", ca->dir, "Submission directory")->required();
    collect->add_option("--db", ca->db, "Run store to merge into")->required();
    collect->callback([ca] { runCollect(*ca); });
}

} // namespace orrery::cli
