"""Stand-in for HIPS/autograd, which Debian does not package, for Pollux's simulator (osdi21-artifact).

Only `autograd.grad` and `autograd.numpy` are used there, by goodput.fit_perf_params (the online fit of the
throughput model). Its Tiresias and Optimus baselines never read the fitted parameters for their decisions
(their jobs keep their batch size; optimus.py reads measured step times), so a central-difference gradient
is enough. Not for the artifact's own pollux policy.
"""
import numpy

from . import numpy as numpy  # noqa: F401  (autograd.numpy is plain numpy here)


def grad(f):
    def g(x, *args):
        x = numpy.asarray(x, dtype=float)
        out = numpy.zeros_like(x)
        for i in range(x.size):
            h = 1e-6 * max(1.0, abs(x[i]))
            xp, xm = x.copy(), x.copy()
            xp[i] += h
            xm[i] -= h
            out[i] = (f(xp, *args) - f(xm, *args)) / (2 * h)
        return out
    return g
