#include "opt/coin_module.h"

#include "io/error.h"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace orrery::opt::coin {

std::string modulePath()
{
    if (const char* path = std::getenv("ORRERY_COIN_MODULE"); path && *path)
        return path;
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return ORRERY_COIN_MODULE_FROM_BINDIR; // relative to the working directory: the loader's error names it
    return (exe.parent_path() / ORRERY_COIN_MODULE_FROM_BINDIR).lexically_normal().string();
}

namespace {

const Api* load()
{
    const std::string path = modulePath();
    // RTLD_LOCAL: CLP's and CBC's symbols stay the module's; nothing else in the process binds to them.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        throw Error(fmt::format("cannot load the LP/MILP solver module (COIN-OR CLP and CBC) from {}: {} (set "
                                "ORRERY_COIN_MODULE to its path if it is installed elsewhere)",
                                path, dlerror()));
    using Entry = const Api* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, kEntryPoint));
    const Api* table = entry ? entry() : nullptr;
    if (!table || table->version != kApiVersion)
        throw Error(fmt::format("the LP/MILP solver module {} is not this build's (interface version {}, expected {})",
                                path, table ? table->version : -1, kApiVersion));
    return table; // the module stays loaded for the life of the process
}

} // namespace

const Api& api()
{
    static const Api* const table = load();
    return *table;
}

} // namespace orrery::opt::coin
