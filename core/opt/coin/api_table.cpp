// The solver module's one exported symbol (coin_api.h).
#include "opt/coin/module_parts.h"

extern "C" __attribute__((visibility("default"))) const orrery::opt::coin::Api* orrery_coin_api()
{
    using namespace orrery::opt::coin;
    static const Api table{kApiVersion,      lpLoad,         lpFree,         lpSolve,  lpSetRowLower,
                           lpSetColumnLower, lpSetObjective, lpColumnValues, solveMilp};
    return &table;
}
