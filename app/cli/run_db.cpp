#include "run_db.h"

#include "io/error.h"
#include "store/default_path.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace orrery::cli {

CLI::Option* addDbOption(CLI::App* cmd, std::string& path)
{
    return cmd->add_option("--db", path, "Run store (SQLite); default " + store::defaultDatabasePath());
}

namespace {

std::string resolve(const std::string& given)
{
    return given.empty() ? store::defaultDatabasePath() : given;
}

void requireExisting(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw Error(path, "", "no such run store");
}

store::RunStore::Options writing(double lockTimeoutS)
{
    store::RunStore::Options options;
    options.lockTimeoutMs = static_cast<int>(lockTimeoutS * 1000);
    options.onLockWait = [lockTimeoutS](const std::string& file) {
        std::cerr << fmt::format("orrery-cli: waiting for a lock on {} (another process is writing to it); giving "
                                 "up after {:g} s\n",
                                 file, lockTimeoutS);
    };
    return options;
}

} // namespace

store::RunStore openRunStoreForWriting(const std::string& given, double lockTimeoutS)
{
    const std::string path = resolve(given);
    std::error_code ec;
    if (given.empty() && !std::filesystem::exists(path, ec))
        std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    return store::RunStore(path, writing(lockTimeoutS));
}

store::RunStore openRunStoreForReading(const std::string& given)
{
    const std::string path = resolve(given);
    requireExisting(path);
    store::RunStore::Options options = writing(kDefaultLockTimeoutS);
    options.access = store::RunStore::Access::ReadOnly;
    return store::RunStore(path, options);
}

store::RunStore openExistingRunStoreForWriting(const std::string& given)
{
    const std::string path = resolve(given);
    requireExisting(path);
    return store::RunStore(path, writing(kDefaultLockTimeoutS));
}

} // namespace orrery::cli
