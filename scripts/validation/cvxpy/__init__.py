"""A stand-in for the part of cvxpy that Gavel's scheduler/policies use, over ECOS, scipy or CVXOPT.

Validation only (docs/validation.md, "Gavel's policy library"): Debian ships no cvxpy, and Gavel's LP
policies import it. Put this directory first on PYTHONPATH and `import cvxpy as cp` finds this module.

What it covers, and how:
* one Variable per problem; affine expressions are sparse (rows x variables) matrices plus a constant,
  so indexing, +, -, scalar/elementwise multiply, cp.multiply, cp.sum(axis), cp.hstack/vstack and
  comparisons (<=, >=, ==) build linear constraints;
* solvers (CVXPY_STANDIN_METHOD):
  - "ecos" (the default when ECOS_LIB is set): ECOS itself, the solver Gavel's cvxpy calls, through
    ecos_shim.c built against an ECOS checkout (ECOS_LIB = that library). LPs go to ECOS as cvxpy states
    them (G x <= h, rows in constraint order, ECOS' default settings); finish-time fairness'
    Minimize(maximum(a_i + c_i * inv_pos(l_i))) goes to ECOS as one SOCP, as cvxpy canonicalises it
    (epigraph t, u_i >= inv_pos(l_i) as the cone ||(2, l_i - u_i)|| <= l_i + u_i). Status as cvxpy reads
    ECOS' exit flag (10, "optimal_inaccurate", is not "optimal"). The reference figures use this;
  - "interior-point" (the default otherwise): scipy's legacy interior point (Andersen & Andersen's
    homogeneous algorithm, no crossover); finish-time fairness by bisection on z, each step the LP
    feasibility problem l_i >= c_i / (z - a_i), the last feasible point returned; HiGHS' simplex when it
    fails numerically. NOT a faithful ECOS: on a feasibility LP (constant objective; min_total_duration)
    every feasible point is optimal and where a method stops decides the allocation; this one stops
    elsewhere than ECOS does (docs/validation.md);
  - "cvxopt": CVXOPT's conelp (ECOS' parent algorithm, without ECOS' equilibration and step rules) with
    ECOS' tolerances, the SOCP as for "ecos" (falling back to the bisection when conelp breaks down);
  - "highs": HiGHS' simplex (a vertex);
* solve outcomes are counted in `outcomes` (run_gavel.py prints them);
* status "optimal" or "infeasible" as cvxpy reports them; anything else raises.
"""

import os
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

OPTIMAL = "optimal"
INFEASIBLE = "infeasible"
# ECOS itself when a build of it is at hand (ECOS_LIB), else scipy's legacy interior point.
_METHOD = os.environ.get("CVXPY_STANDIN_METHOD", "ecos" if os.environ.get("ECOS_LIB") else "interior-point")

# Every solve, for the summary the runner prints: (kind, variables, constraints rows).
solve_log = []
# How each solve ended, for the runner's summary: "ipm" (interior point answered), "ipm_infeasible",
# "highs" / "highs_infeasible" (the interior point failed numerically and HiGHS' simplex answered).
outcomes = {}


def _count(what):
    outcomes[what] = outcomes.get(what, 0) + 1


def _const(v):
    a = np.asarray(v, dtype=float)
    return a


class Expression:
    """Affine: value = A @ x + b, reshaped to `shape` (C order)."""

    def __init__(self, var, A, b, shape):
        self.var = var
        self.A = sp.csr_matrix(A)
        self.b = np.asarray(b, dtype=float).ravel()
        self.shape = tuple(shape)

    @property
    def size(self):
        return int(np.prod(self.shape)) if self.shape else 1

    # -- helpers ----------------------------------------------------------------------------------------------
    def _broadcast(self, shape):
        if tuple(shape) == self.shape:
            return self
        idx = np.broadcast_to(np.arange(self.size).reshape(self.shape), shape).ravel()
        return Expression(self.var, self.A[idx], self.b[idx], shape)

    @staticmethod
    def _lift(other, like):
        if isinstance(other, Expression):
            return other
        c = _const(other)
        n = like.A.shape[1]
        return Expression(like.var, sp.csr_matrix((c.size, n)), c.ravel(), c.shape)

    # -- arithmetic ---------------------------------------------------------------------------------------------
    def __add__(self, other):
        if isinstance(other, _InvPosSum):
            return other + self
        o = Expression._lift(other, self)
        shape = np.broadcast_shapes(self.shape, o.shape)
        a, c = self._broadcast(shape), o._broadcast(shape)
        return Expression(self.var or o.var, a.A + c.A, a.b + c.b, shape)

    __radd__ = __add__

    def __neg__(self):
        return Expression(self.var, -self.A, -self.b, self.shape)

    def __sub__(self, other):
        return self + (-other if isinstance(other, Expression) else -_const(other))

    def __rsub__(self, other):
        return (-self) + other

    def _scale(self, c):
        c = _const(c)
        shape = np.broadcast_shapes(self.shape, c.shape)
        e = self._broadcast(shape)
        cf = np.broadcast_to(c, shape).ravel()
        return Expression(e.var, sp.diags(cf) @ e.A, e.b * cf, shape)

    def __mul__(self, other):
        if isinstance(other, Expression):
            raise NotImplementedError("product of two expressions")
        return self._scale(other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._scale(1.0 / _const(other))

    def __getitem__(self, key):
        idx = np.arange(self.size).reshape(self.shape)[key]
        idx = np.asarray(idx)
        return Expression(self.var, self.A[idx.ravel()], self.b[idx.ravel()], idx.shape)

    # -- constraints -------------------------------------------------------------------------------------------
    def __le__(self, other):
        return Constraint(self - other, "<=")

    def __ge__(self, other):
        return Constraint(Expression._lift(other, self) - self, "<=")

    def __eq__(self, other):
        return Constraint(self - other, "==")

    __hash__ = object.__hash__

    @property
    def value(self):
        if self.var is None or self.var.value is None:
            return None
        return (self.A @ self.var.value.ravel() + self.b).reshape(self.shape)


class Variable(Expression):
    def __init__(self, shape=(), **_):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = int(np.prod(shape)) if shape else 1
        Expression.__init__(self, self, sp.identity(n, format="csr"), np.zeros(n), shape)
        self._value = None

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, v):
        self._value = None if v is None else np.asarray(v, dtype=float).reshape(self.shape)


class Parameter:
    def __init__(self, shape=(), value=None, **_):
        self.shape = shape
        self.value = value


def multiply(a, b):
    if isinstance(a, Expression):
        return a._scale(b)
    return b._scale(a)


def sum(expr, axis=None, keepdims=False):  # noqa: A001 (cvxpy's name)
    if not isinstance(expr, Expression):
        return np.sum(expr, axis=axis)
    if axis is None:
        S = sp.csr_matrix(np.ones((1, expr.size)))
        return Expression(expr.var, S @ expr.A, S @ expr.b, ())
    axis = axis % len(expr.shape)
    out_shape = expr.shape[:axis] + expr.shape[axis + 1:]
    out = np.arange(int(np.prod(out_shape)) if out_shape else 1).reshape(out_shape)
    target = np.broadcast_to(np.expand_dims(out, axis), expr.shape).ravel()
    S = sp.csr_matrix((np.ones(expr.size), (target, np.arange(expr.size))), shape=(out.size, expr.size))
    return Expression(expr.var, S @ expr.A, S @ expr.b, out_shape)


def _stack(items):
    items = [i if isinstance(i, Expression) else None for i in items]
    var = next(i.var for i in items if i is not None)
    return Expression(var, sp.vstack([i.A for i in items]), np.concatenate([i.b for i in items]),
                      (sum_sizes(items),))


def sum_sizes(items):
    return int(np.sum([i.size for i in items]))


def hstack(items):
    return _stack(items)


def vstack(items):
    return _stack(items)


def reshape(expr, shape, order="C"):
    if order != "C":
        raise NotImplementedError("reshape order F")
    return Expression(expr.var, expr.A, expr.b, shape)


class _InvPosSum:
    """a + c * inv_pos(l), a and c non-negative constants, l scalar affine."""

    def __init__(self, a, c, l):
        self.a, self.c, self.l = float(a), float(c), l

    def __add__(self, other):
        return _InvPosSum(self.a + float(np.asarray(other).ravel()[0]), self.c, self.l)

    __radd__ = __add__

    def __mul__(self, other):
        k = float(np.asarray(other).ravel()[0])
        if k < 0:
            raise NotImplementedError("negative multiple of inv_pos")
        return _InvPosSum(self.a * k, self.c * k, self.l)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self * (1.0 / float(np.asarray(other).ravel()[0]))


def inv_pos(expr):
    if expr.size != 1:
        raise NotImplementedError("inv_pos of a non-scalar")
    return _InvPosSum(0.0, 1.0, expr)


class _Maximum:
    def __init__(self, terms):
        self.terms = terms


def maximum(*terms):
    return _Maximum(list(terms))


class Constraint:
    def __init__(self, expr, sense):
        self.expr = expr  # expr (sense) 0
        self.sense = sense


class Minimize:
    def __init__(self, expr):
        self.expr = expr
        self.sign = 1.0


class Maximize:
    def __init__(self, expr):
        self.expr = expr
        self.sign = -1.0


def _lp(var, c, constraints, extra_ub=None):
    """Solves min c.x s.t. constraints (+ extra (A, b) rows of A x <= b); returns x or None."""
    n = var.size
    ub_A, ub_b, eq_A, eq_b = [], [], [], []
    for con in constraints:
        e = con.expr
        A = e.A if e.A.shape[1] == n else sp.csr_matrix((e.size, n))
        if con.sense == "<=":
            ub_A.append(A)
            ub_b.append(-e.b)
        else:
            eq_A.append(A)
            eq_b.append(-e.b)
    if extra_ub is not None:
        ub_A.append(extra_ub[0])
        ub_b.append(extra_ub[1])
    kwargs = {}
    if ub_A:
        kwargs["A_ub"] = sp.vstack(ub_A).tocsr()
        kwargs["b_ub"] = np.concatenate(ub_b)
    if eq_A:
        kwargs["A_eq"] = sp.vstack(eq_A).tocsr()
        kwargs["b_eq"] = np.concatenate(eq_b)
    # Bounds come from the constraints (x >= 0 is one of Gavel's); the variable itself is free.
    method = _METHOD
    if method == "cvxopt":
        return _conelp(c, kwargs, n, constraints)
    if method == "ecos":
        if "A_eq" in kwargs:
            raise NotImplementedError("equality constraints through ECOS")
        G = kwargs.get("A_ub", sp.csr_matrix((0, n)))
        solve_log.append(("ecos", n, G.shape[0]))
        flag, x = _ecos(c, G, kwargs.get("b_ub", np.zeros(0)), G.shape[0], [])
        return _ecos_lp_result(flag, x)
    options = {}
    if method == "interior-point":
        options = {"sparse": True, "tol": 1e-9}
        if "A_ub" in kwargs:
            kwargs["A_ub"] = kwargs["A_ub"].tocsc()
    rows = sum_sizes([con.expr for con in constraints])
    solve_log.append((method, n, rows))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = linprog(c, bounds=(None, None), method=method, options=options, **kwargs)
    tag = "ipm" if method == "interior-point" else method
    if res.status == 0:
        _count(tag)
        return res.x
    if res.status == 2:
        _count(tag + "_infeasible")
        return None
    if method == "interior-point":
        # The legacy method occasionally stalls on numerics; the simplex answer is still an optimum.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kwargs.pop("options", None)
            res = linprog(c, bounds=(None, None), method="highs", **kwargs)
        if res.status == 0:
            _count("highs")
            return res.x
        if res.status == 2:
            _count("highs_infeasible")
            return None
    raise RuntimeError("linprog failed: " + res.message)


_ecos_lib = None


def _ecos(c, G, h, l, q):
    """ECOS itself (ECOS_LIB: scripts/validation/ecos_shim.c built against an ECOS checkout) on
    min c'x s.t. G x + s = h, s in (orthant of l rows) x (second-order cones of sizes q)."""
    import ctypes

    global _ecos_lib
    if _ecos_lib is None:
        _ecos_lib = ctypes.CDLL(os.environ["ECOS_LIB"])
    G = sp.csc_matrix(G)
    G.sort_indices()
    n, m = G.shape[1], G.shape[0]
    dbl, idx = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int)
    pr = np.ascontiguousarray(G.data, dtype=np.float64)
    jc = np.ascontiguousarray(G.indptr, dtype=np.int32)
    ir = np.ascontiguousarray(G.indices, dtype=np.int32)
    qa = np.ascontiguousarray(q if q else [0], dtype=np.int32)
    cc = np.ascontiguousarray(c, dtype=np.float64).copy()
    hh = np.ascontiguousarray(h, dtype=np.float64).copy()
    x = np.zeros(n)
    iters = ctypes.c_int(0)
    flag = _ecos_lib.ecos_standin(n, m, l, len(q), qa.ctypes.data_as(idx), pr.ctypes.data_as(dbl),
                                  jc.ctypes.data_as(idx), ir.ctypes.data_as(idx), cc.ctypes.data_as(dbl),
                                  hh.ctypes.data_as(dbl), x.ctypes.data_as(dbl), ctypes.byref(iters))
    return flag, x


def _ecos_lp_result(flag, x):
    # cvxpy's reading of ECOS' exit flags: 0 optimal, 10 optimal_inaccurate (not "optimal": Gavel's
    # min_total_duration counts it as infeasible), 1/11 infeasible; others raise SolverError in cvxpy.
    _count({0: "ecos", 10: "ecos_inaccurate", 1: "ecos_infeasible", 11: "ecos_infeasible_inaccurate"}.get(
        flag, "ecos_flag_%d" % flag))
    if flag == 0:
        return x
    if flag in (1, 10, 11):
        return None
    raise RuntimeError("ECOS failed with exit flag %d (cvxpy would raise SolverError)" % flag)


def _conelp(c, kwargs, n, constraints):
    """ECOS' algorithm as CVXOPT implements it (conelp: primal-dual path following on the homogeneous
    self-dual embedding, Nesterov-Todd scaling, Mehrotra correction, CVXOPT's starting point), with ECOS'
    default tolerances; rows in cvxpy's order (constraints as listed, G x <= h)."""
    from cvxopt import matrix, solvers, spmatrix

    def sparse(M):
        M = sp.coo_matrix(M)
        return spmatrix(M.data.tolist(), M.row.tolist(), M.col.tolist(), M.shape)

    G = kwargs.get("A_ub", sp.csr_matrix((0, n)))
    h = kwargs.get("b_ub", np.zeros(0))
    args = {}
    if "A_eq" in kwargs:
        args = {"A": sparse(kwargs["A_eq"]), "b": matrix(kwargs["b_eq"])}
    solve_log.append(("cvxopt", n, sum_sizes([con.expr for con in constraints])))
    opts = {"show_progress": False, "abstol": 1e-8, "reltol": 1e-8, "feastol": 1e-8, "maxiters": 100}
    sol = solvers.conelp(matrix(np.asarray(c, dtype=float)), sparse(G), matrix(np.asarray(h, dtype=float)),
                         {"l": G.shape[0], "q": [], "s": []}, options=opts, **args)
    if sol["status"] == "optimal":
        _count("cvxopt")
        return np.array(sol["x"]).ravel()
    if sol["status"] == "primal infeasible":
        _count("cvxopt_infeasible")
        return None
    # Stopped short of the tolerances: ECOS would report "optimal_inaccurate", which Gavel's min_total_duration
    # counts as not feasible (it asks for status == "optimal").
    _count("cvxopt_" + sol["status"].replace(" ", "_"))
    return None


class Problem:
    def __init__(self, objective, constraints=()):
        self.objective = objective
        self.constraints = list(constraints)
        self.status = None
        self.value = None

    def _var(self):
        for con in self.constraints:
            if con.expr.var is not None:
                return con.expr.var
        raise ValueError("no variable")

    def solve(self, solver=None, **_):
        var = self._var()
        obj = self.objective.expr
        if isinstance(obj, (_Maximum, _InvPosSum)):
            return self._solve_minmax(var, obj.terms if isinstance(obj, _Maximum) else [obj])
        if isinstance(obj, Expression):
            c = self.objective.sign * np.asarray(obj.A.todense()).ravel()
        else:  # a constant objective: a feasibility problem
            c = np.zeros(var.size)
        x = _lp(var, c, self.constraints)
        if x is None:
            var.value = None
            self.status = INFEASIBLE
            return np.inf
        var.value = x
        self.status = OPTIMAL
        self.value = float(c @ x) * self.objective.sign
        return self.value

    def _solve_minmax(self, var, terms):
        if _METHOD in ("cvxopt", "ecos"):
            return self._solve_minmax_socp(var, terms)
        return self._solve_minmax_bisection(var, terms)

    def _solve_minmax_bisection(self, var, terms):
        n = var.size
        L = sp.vstack([t.l.A for t in terms]).tocsr()
        lb = np.array([t.l.b[0] for t in terms])
        a = np.array([t.a for t in terms])
        c = np.array([t.c for t in terms])

        def feasible(z):
            if np.any(z <= a):
                return None
            need = c / (z - a)  # l_i >= need_i  <=>  -L x <= lb - need
            return _lp(var, np.zeros(n), self.constraints, (-L, lb - need))

        lo = float(np.max(a))
        hi = max(lo, 1.0) * 2
        x = feasible(hi)
        while x is None:
            lo, hi = hi, hi * 2
            if hi > 1e15:
                var.value = None
                self.status = INFEASIBLE
                return np.inf
            x = feasible(hi)
        # Bisection to a relative gap of 1e-6 (ECOS' default tolerances are of that order).
        while hi - lo > 1e-6 * hi:
            mid = (lo + hi) / 2
            y = feasible(mid)
            if y is None:
                lo = mid
            else:
                hi, x = mid, y
        var.value = x
        self.status = OPTIMAL
        self.value = hi
        return hi

    def _solve_minmax_socp(self, var, terms):
        """min max_i a_i + c_i inv_pos(l_i) as cvxpy hands it to ECOS: one SOCP, solved by conelp (ECOS' algorithm).

        Variables v = (x, t, u_1..u_m): min t s.t. the linear constraints, a_i + c_i u_i <= t, and u_i >= 1 / l_i
        as cvxpy's power canonicalisation states it, the second-order cone ||(2, l_i - u_i)|| <= l_i + u_i.
        """
        n, m = var.size, len(terms)
        N = n + 1 + m
        G_rows, h_rows = [], []
        for con in self.constraints:
            e = con.expr
            A = e.A if e.A.shape[1] == n else sp.csr_matrix((e.size, n))
            if con.sense != "<=":
                raise NotImplementedError("equality constraints with the min-max form")
            G_rows.append(sp.hstack([A, sp.csr_matrix((e.size, 1 + m))]))
            h_rows.append(-e.b)
        lin = sp.lil_matrix((m, N))
        for i, term in enumerate(terms):
            lin[i, n] = -1.0
            lin[i, n + 1 + i] = term.c
        G_rows.append(lin.tocsr())
        h_rows.append(-np.array([term.a for term in terms]))
        n_lin = int(np.sum([g.shape[0] for g in G_rows]))
        for i, term in enumerate(terms):
            L = sp.hstack([term.l.A, sp.csr_matrix((1, 1 + m))]).tolil()
            plus, minus = L.copy(), L.copy()
            plus[0, n + 1 + i] = 1.0
            minus[0, n + 1 + i] = -1.0
            G_rows += [-plus.tocsr(), sp.csr_matrix((1, N)), -minus.tocsr()]
            h_rows += [np.array([term.l.b[0]]), np.array([2.0]), np.array([term.l.b[0]])]
        G = sp.vstack(G_rows).tocoo()
        h = np.concatenate(h_rows)
        cvec = np.zeros(N)
        cvec[n] = 1.0
        if _METHOD == "ecos":
            solve_log.append(("ecos-socp", N, G.shape[0]))
            flag, v = _ecos(cvec, G, h, n_lin, [3] * m)
            _count({0: "ecos_socp", 10: "ecos_socp_inaccurate"}.get(flag, "ecos_socp_flag_%d" % flag))
            if flag not in (0, 10):
                var.value = None
                self.status = INFEASIBLE
                return np.inf
            var.value = v[:n]
            self.status = OPTIMAL if flag == 0 else "optimal_inaccurate"
            self.value = float(v[n])
            return self.value
        from cvxopt import matrix, solvers, spmatrix  # only this path needs CVXOPT

        solve_log.append(("cvxopt-socp", N, G.shape[0]))
        opts = {"show_progress": False, "abstol": 1e-8, "reltol": 1e-8, "feastol": 1e-8, "maxiters": 100}
        try:
            sol = solvers.conelp(matrix(cvec), spmatrix(G.data.tolist(), G.row.tolist(), G.col.tolist(), G.shape),
                                 matrix(h), {"l": n_lin, "q": [3] * m, "s": []}, options=opts)
        except (ValueError, ArithmeticError):
            # CVXOPT's scaling update broke down numerically (ECOS guards it differently): the bisection instead.
            _count("cvxopt_socp_failed")
            return self._solve_minmax_bisection(var, terms)
        _count("cvxopt_socp_" + sol["status"].replace(" ", "_"))
        if sol["x"] is None or sol["status"].endswith("infeasible"):
            var.value = None
            self.status = INFEASIBLE
            return np.inf
        v = np.array(sol["x"]).ravel()
        var.value = v[:n]
        # ECOS stopping short reports "optimal_inaccurate"; Gavel's finish-time fairness uses the point anyway.
        self.status = OPTIMAL if sol["status"] == "optimal" else "optimal_inaccurate"
        self.value = float(v[n])
        return self.value
