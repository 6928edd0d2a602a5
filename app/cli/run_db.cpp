#include "run_db.h"

#include "io/error.h"
#include "store/default_path.h"

#include <filesystem>

namespace orrery::cli {

CLI::Option* addDbOption(CLI::App* cmd, std::string& path)
{
    return cmd->add_option("--db", path, "Run store (SQLite); default " + store::defaultDatabasePath());
}

store::RunStore openRunStore(const std::string& given, bool mustExist)
{
    namespace fs = std::filesystem;
    const std::string path = given.empty() ? store::defaultDatabasePath() : given;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        if (mustExist)
            throw Error(path, "", "no such run store");
        if (given.empty())
            fs::create_directories(fs::path(path).parent_path(), ec);
    }
    return store::RunStore(path);
}

} // namespace orrery::cli
