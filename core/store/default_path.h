#pragma once

#include <string>

namespace orrery::store {

/**
 * The run store used when none is named: `$XDG_DATA_HOME/orrery/orrery.sqlite`,
 * or `~/.local/share/orrery/orrery.sqlite` when XDG_DATA_HOME is unset or not
 * absolute (the XDG base directory rules).
 */
std::string defaultDatabasePath();

} // namespace orrery::store
