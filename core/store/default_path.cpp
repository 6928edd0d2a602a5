#include "store/default_path.h"

#include <cstdlib>

namespace orrery::store {

std::string defaultDatabasePath()
{
    const char* xdg = std::getenv("XDG_DATA_HOME");
    if (xdg && xdg[0] == '/')
        return std::string(xdg) + "/orrery/orrery.sqlite";
    const char* home = std::getenv("HOME");
    return std::string(home && home[0] ? home : ".") + "/.local/share/orrery/orrery.sqlite";
}

} // namespace orrery::store
