#include "test_support.h"

#include "io/error.h"
#include "util/text.h"

#include <QFileInfo>
#include <QProcess>

#include <fstream>

namespace orrery::test {

std::string sourcePath(const std::string& relative)
{
    return std::string(ORRERY_SOURCE_DIR) + "/" + relative;
}

std::string sharedDataPath(const std::string& relative)
{
    const std::string path = std::string(ORRERY_SHARED_DATA_DIR) + "/" + relative;
    return QFileInfo::exists(QString::fromStdString(path)) ? path : std::string();
}

int manifestLines(const std::string& relative)
{
    const std::string manifest = sharedDataPath("MANIFEST.tsv");
    if (manifest.empty())
        return -1;
    std::ifstream in(manifest);
    std::string line;
    while (std::getline(in, line)) {
        const auto f = util::split(line, '\t');
        if (f.size() >= 3 && f[0] == relative)
            return std::stoi(f[2]);
    }
    return -1;
}

std::string cliPath()
{
    return ORRERY_CLI_PATH;
}

bool checkProperty(const std::string& description, const std::function<void()>& property)
{
    const auto result = rc::check(description, property);
    return result;
}

CommandResult runCommand(const std::vector<std::string>& argv, const std::string& stdinText)
{
    QProcess p;
    QStringList args;
    for (std::size_t i = 1; i < argv.size(); ++i)
        args << QString::fromStdString(argv[i]);
    p.start(QString::fromStdString(argv.at(0)), args);
    if (!p.waitForStarted(10000))
        return {};
    if (!stdinText.empty())
        p.write(stdinText.data(), static_cast<qint64>(stdinText.size()));
    p.closeWriteChannel();
    p.waitForFinished(240000);
    CommandResult r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace orrery::test
