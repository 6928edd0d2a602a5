#include "sweep/slurm_submission.h"

#include "io/error.h"
#include "store/timestamp.h"
#include "sweep/shard.h"
#include "sweep/slurm_script.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace orrery::sweep {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/** Creates `dir` and its missing parents, each 0777 less the umask and the world-write bit. */
void createDirectories(const std::string& dir)
{
    std::vector<fs::path> missing;
    std::error_code ec;
    for (fs::path p = fs::path(dir); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path())
            break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it)
        // The kernel applies the umask to the mode given: 0775 & ~umask is 0777 & ~(umask | 002).
        if (::mkdir(it->c_str(), 0775) != 0 && errno != EEXIST)
            throw Error(it->string(), "", fmt::format("cannot create the directory: {}", std::strerror(errno)));
}

} // namespace

unsigned processUmask()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Umask:", 0) == 0)
            return static_cast<unsigned>(std::stoul(line.substr(6), nullptr, 8)) & 0777u;
    // Older kernels do not say: read it by setting it, which is a moment's race with other threads creating files.
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return static_cast<unsigned>(mask);
}

std::string absoluteSubmissionPath(const std::string& p)
{
    std::error_code ec;
    const auto a = fs::absolute(p, ec);
    return ec ? p : a.lexically_normal().string();
}

void writeFileAtomically(const std::string& path, const std::string& text, bool executable)
{
    const std::string tmp = path + ".tmp";
    // 0664 less the umask: the user's usual permissions, never world-writable (shards and status files hold results
    // others could falsify; so does what tells the tasks what to run).
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0664);
    if (fd < 0)
        throw Error(path, "", "cannot write file");
    std::string_view rest = text;
    while (!rest.empty()) {
        const ssize_t n = ::write(fd, rest.data(), rest.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ::close(fd);
            throw Error(path, "", "write failed");
        }
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
    if (::close(fd) != 0)
        throw Error(path, "", "write failed");
    if (executable)
        ::chmod(tmp.c_str(), 0755 & ~(processUmask() | 002));
    fs::rename(tmp, path);
}

void checkSubmissionPath(const std::string& dir)
{
    for (const char c : dir)
        if (c == '\n' || c == '%')
            throw Error(dir, "--dir",
                        "a submission directory's path may not hold a newline or '%' (Slurm reads "
                        "'%' in log paths as a pattern)");
}

void checkSubmissionDir(const std::string& dir)
{
    checkSubmissionPath(dir);
    std::error_code ec;
    if (fs::exists(dir + "/submission.json", ec))
        throw Error(dir, "--dir",
                    "already holds a submission; use --resubmit to run its failed tasks again, or "
                    "another directory");
}

SlurmSubmission writeSlurmSubmission(const SweepPlan& plan, const SlurmSubmissionOptions& options)
{
    SlurmSubmission out;
    out.dir = absoluteSubmissionPath(options.dir);
    const std::string& dir = out.dir;
    checkSubmissionDir(dir);
    const SweepSpec& spec = plan.spec;
    const std::size_t n = plan.points.size();
    out.points = n;
    out.pointsPerTask = options.pointsPerTask > 0 ? options.pointsPerTask : std::max<std::size_t>(1, (n + 999) / 1000);
    out.tasks = (n + out.pointsPerTask - 1) / out.pointsPerTask;

    SlurmBatch batch;
    batch.dir = dir;
    batch.cli = options.cli;
    batch.sweepName = spec.name;
    batch.points = n;
    batch.tasks = out.tasks;
    batch.partition = options.partition;
    batch.time = options.time;
    batch.arrayMax = options.arrayMax;
    batch.cpusPerTask = options.cpusPerTask;
    batch.umask = processUmask();
    const std::string script = sbatchScript(batch); // checks the options before anything is written

    for (const char* sub : {"", "/shards", "/logs", "/status"})
        createDirectories(dir + sub);
    // The tasks read a frozen copy of the spec, its base scenario made absolute, so that they resolve the same
    // points wherever they start.
    json frozen = spec.document;
    if (spec.scenario != "default")
        frozen["scenario"] = absoluteSubmissionPath(spec.scenarioPath());
    writeFileAtomically(dir + "/spec.json", frozen.dump(2) + "\n");
    json points = json::array();
    for (std::size_t t = 0; t < out.tasks; ++t) {
        const Shard s{t, out.tasks};
        for (std::size_t i = s.begin(n); i < s.end(n); ++i) {
            const auto& p = plan.points[i];
            points.push_back({{"index", p.index},
                              {"key", p.key},
                              {"task", t},
                              {"policy", p.policy},
                              {"seed", p.seed},
                              {"axes", p.axes}});
        }
    }
    writeFileAtomically(dir + "/points.json", points.dump(1) + "\n");
    writeFileAtomically(dir + "/sweep.sbatch", script, true);
    const std::string specFile =
        options.specFile.empty() ? dir + "/spec.json" : absoluteSubmissionPath(options.specFile);
    out.submission = {{"sweep", spec.name},
                      {"spec", specFile},
                      {"points", n},
                      {"tasks", out.tasks},
                      {"points_per_task", out.pointsPerTask},
                      {"array_max", options.arrayMax},
                      {"cli", options.cli},
                      {"jobs", json::array()},
                      {"created_at", store::utcNowIso()}};
    writeFileAtomically(dir + "/submission.json", out.submission.dump(2) + "\n");
    return out;
}

} // namespace orrery::sweep
