"""Makes a checkout of Gavel's scheduler/ importable here (validation only, docs/validation.md).

The cvxpy stand-in (this directory) goes first on the path; modules Gavel imports but a simulation never
uses (its gRPC runtime, psutil, the matrix-completion throughput estimator) become empty modules.
"""
import os
import sys
import types

HERE = os.path.dirname(os.path.realpath(__file__))


def _stub(name, **attrs):
    m = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(m, k, v)
    sys.modules[name] = m
    return m


def setup(gavel_scheduler_dir):
    sys.path.insert(0, HERE)
    sys.path.insert(1, gavel_scheduler_dir)
    sys.path.insert(2, os.path.join(gavel_scheduler_dir, "policies"))
    for name in ("psutil", "matrix_completion", "grpc"):
        _stub(name)
    rpc = _stub("runtime.rpc", scheduler_server=_stub("runtime.rpc.scheduler_server"),
                scheduler_client=_stub("runtime.rpc.scheduler_client"))
    _stub("runtime", rpc=rpc)
