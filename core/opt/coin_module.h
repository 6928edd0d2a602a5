#pragma once

#include "opt/coin_api.h"

namespace orrery::opt::coin {

/**
 * The solver module's table, loaded on the first call (thread-safe). The module is looked for at
 * $ORRERY_COIN_MODULE when that is set, else where the install puts it relative to the running executable
 * (`../lib/<multiarch>/orrery/orrery_coin.so` from `bin/`; the build tree has the same layout one directory
 * below it, where app/, tests/ and bench/ put their executables). Throws orrery::Error naming the path and the
 * loader's reason when it cannot be loaded.
 */
const Api& api();

/** Where api() looks for the module (for messages and tests). */
std::string modulePath();

} // namespace orrery::opt::coin
