/* Validation only (docs/validation.md): a C entry point over ECOS for the cvxpy stand-in (cvxpy/__init__.py,
 * CVXPY_STANDIN_METHOD=ecos), so that Gavel's LP policies run through the solver Gavel itself calls. ECOS is
 * not part of Orrery: build this against a checkout of embotech/ecos, e.g.
 *   cc -O2 -fPIC -shared -I$ECOS/include -I$ECOS/external/amd/include -I$ECOS/external/ldl/include \
 *      -I$ECOS/external/SuiteSparse_config -DCTRLC=0 ecos_shim.c $ECOS/src/{cone,ctrlc,ecos,equil,expcone,kkt,\
 *      preproc,spla,splamm,timer,wright_omega}.c $ECOS/external/amd/src/*.c $ECOS/external/ldl/src/ldl.c -lm \
 *      -o libecos_standin.so
 * (int indices: no -DDLONG). */
#include "ecos.h"

/* Solves min c'x s.t. G x + s = h, s in the product of l orthant rows and ncones second-order cones (sizes q),
 * with ECOS' default settings; G in compressed columns. Writes x and the iteration count; returns ECOS' exit flag
 * (0 optimal, 1 primal infeasible, 2 dual infeasible, +10 inaccurate, < 0 failure), -100 when setup fails. */
int ecos_standin(idxint n, idxint m, idxint l, idxint ncones, idxint* q, pfloat* Gpr, idxint* Gjc, idxint* Gir,
                 pfloat* c, pfloat* h, pfloat* xout, idxint* iterations)
{
    pwork* w = ECOS_setup(n, m, 0, l, ncones, q, 0, Gpr, Gjc, Gir, 0, 0, 0, c, h, 0);
    if (!w)
        return -100;
    w->stgs->verbose = 0;
    idxint flag = ECOS_solve(w);
    for (idxint i = 0; i < n; ++i)
        xout[i] = w->x[i];
    *iterations = w->info->iter;
    ECOS_cleanup(w, 0);
    return (int)flag;
}
