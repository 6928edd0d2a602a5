"""A stand-in for the part of cvxpy that Gavel's scheduler/policies use, over scipy.optimize.linprog.

Validation only (docs/validation.md, "Gavel's policy library"): Debian ships no cvxpy, and Gavel's LP
policies import it. Put this directory first on PYTHONPATH and `import cvxpy as cp` finds this module.

What it covers, and how:
* one Variable per problem; affine expressions are sparse (rows x variables) matrices plus a constant,
  so indexing, +, -, scalar/elementwise multiply, cp.multiply, cp.sum(axis), cp.hstack/vstack and
  comparisons (<=, >=, ==) build linear constraints;
* LPs (Minimize/Maximize of an affine objective, including a constant one) go to linprog. By default the
  legacy interior-point method (Andersen & Andersen's homogeneous self-dual algorithm, without crossover),
  because Gavel solves with ECOS, also a homogeneous self-dual interior-point method: on a degenerate LP
  both land inside the optimal face rather than on one of its vertices (an LP with a constant objective
  is a feasibility problem, and both return a point near the centre of the feasible set). Set
  CVXPY_STANDIN_METHOD=highs for HiGHS' simplex (a vertex) instead;
* the one non-linear form Gavel uses, finish-time fairness' Minimize(maximum(a_i + c_i * inv_pos(l_i)))
  (and a single such term), with a_i, c_i >= 0 constants and l_i affine: min z is found by bisection on z,
  each step the LP feasibility problem l_i >= c_i / (z - a_i); the last feasible point is returned;
* status "optimal" or "infeasible" as cvxpy reports them; anything else raises.
"""

import os
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

OPTIMAL = "optimal"
INFEASIBLE = "infeasible"
_METHOD = os.environ.get("CVXPY_STANDIN_METHOD", "interior-point")

# Every solve, for the summary the runner prints: (kind, variables, constraints rows).
solve_log = []


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
    if res.status == 0:
        return res.x
    if res.status == 2:
        return None
    if method == "interior-point":
        # The legacy method occasionally stalls on numerics; the simplex answer is still an optimum.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kwargs.pop("options", None)
            res = linprog(c, bounds=(None, None), method="highs", **kwargs)
        if res.status == 0:
            return res.x
        if res.status == 2:
            return None
    raise RuntimeError("linprog failed: " + res.message)


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
