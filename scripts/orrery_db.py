"""Read the column-chunked records of an Orrery run store with the Python standard library.

A run's per-record data (job records, allocation intervals, utilisation samples, policy decisions, job events,
the cluster's GPUs) is kept as chunks of little-endian int32/float64 arrays (docs/database.md, "Column chunks"). This
module turns them into plain lists of dicts (or dicts of columns) that pandas takes as they are:

    import sqlite3, pandas as pd, orrery_db
    con = sqlite3.connect("runs.sqlite")
    jobs = pd.DataFrame(orrery_db.jobs(con, run_id=3))
    iv = pd.DataFrame(orrery_db.intervals(con, run_id=3))

No third-party package is needed; with numpy, `np.frombuffer(blob, "<f8")` reads a column as well.
"""

import array
import math
import sys

_INT32 = "i"
_FLOAT64 = "d"

_LABEL = "label"  # int32 index into the chunk's labels (NUL-terminated UTF-8 strings)

_JOB_COLUMNS = [
    ("job_index", _INT32), ("job_id", _LABEL), ("model", _LABEL), ("user", _LABEL), ("arrival_s", _FLOAT64),
    ("start_s", _FLOAT64), ("end_s", _FLOAT64), ("gpus", _INT32), ("gpu_type", _LABEL), ("restarts", _INT32),
    ("gpu_seconds", _FLOAT64), ("cost_usd", _FLOAT64), ("ideal_s", _FLOAT64), ("nodes", _INT32),
    ("demand", _INT32), ("excluded_from_average", _INT32),
]

_TABLES = {
    "jobs": ("job_chunks", _JOB_COLUMNS),
    "intervals": ("interval_chunks", [("job_index", _INT32), ("gpu", _INT32), ("start_s", _FLOAT64), ("end_s", _FLOAT64)]),
    "decisions": ("decision_chunks", [("sim_time_s", _FLOAT64), ("wall_s", _FLOAT64), ("queued", _INT32), ("running", _INT32)]),
    "utilization": ("utilization_chunks", [("time_s", _FLOAT64), ("busy_gpus", _INT32), ("busy_by_type", _INT32)]),
    "job_events": ("event_chunks", [("job_index", _INT32), ("time_s", _FLOAT64), ("kind", _LABEL), ("detail", _LABEL)]),
    "gpus": ("gpu_chunks", [("node_index", _INT32), ("node", _LABEL), ("gpu_type", _LABEL)]),
}

_LABELLED = ("jobs", "job_events", "gpus")


def _decode(blob, code):
    a = array.array(code)
    if a.itemsize != (4 if code == _INT32 else 8):
        raise RuntimeError("this platform's array type %r is not %d bytes" % (code, a.itemsize))
    a.frombytes(blob)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tolist()


def _labels(blob, table, run_id):
    if blob and not blob.endswith(b"\0"):
        raise ValueError("%s: run %s: labels do not end with a NUL byte" % (table, run_id))
    return [b.decode("utf-8") for b in blob.split(b"\0")[:-1]]


def columns(con, series, run_id):
    """One run's records as a dict of equal-length column lists (series: jobs, intervals, decisions, utilization,
    job_events or gpus).

    Job records are stored in the order they were written (a job when it finished); they come back
    in job_index order, with start_s/end_s None when the job never started or did not finish.
    """
    table, cols = _TABLES[series]
    names = ", ".join(name for name, _ in cols)
    extra = {"utilization": ", gpu_types", "jobs": ", labels", "job_events": ", labels", "gpus": ", labels"}.get(series, "")
    out = {name: [] for name, _ in cols}
    for row in con.execute(
        "SELECT records%s, %s FROM %s WHERE run_id = ? ORDER BY chunk_index" % (extra, names, table), (run_id,)
    ):
        records = row[0]
        blobs = row[2:] if extra else row[1:]
        labels = _labels(row[1], table, run_id) if series in _LABELLED else None
        for (name, code), blob in zip(cols, blobs):
            values = _decode(blob, _INT32 if code == _LABEL else code)
            if name == "busy_by_type":
                types = row[1]
                values = [values[i * types:(i + 1) * types] for i in range(records)]
            elif code == _LABEL:
                if any(v < 0 or v >= len(labels) for v in values):
                    raise ValueError("%s: run %s: column %s refers to a missing label" % (table, run_id, name))
                values = [labels[v] for v in values]
            elif series == "jobs" and code == _FLOAT64:
                values = [None if math.isnan(v) else v for v in values]
            if len(values) != records:
                raise ValueError("%s: run %s: column %s has %d values, expected %d" % (table, run_id, name, len(values), records))
            out[name].extend(values)
    if series == "jobs":
        order = sorted(range(len(out["job_index"])), key=out["job_index"].__getitem__)
        out = {name: [values[i] for i in order] for name, values in out.items()}
        out["excluded_from_average"] = [bool(v) for v in out["excluded_from_average"]]
        for name, time in (("queue_s", "start_s"), ("jct_s", "end_s")):
            out[name] = [None if t is None else t - a for t, a in zip(out[time], out["arrival_s"])]
    if series == "gpus":
        # A GPU's record index is its global index, the intervals' gpu.
        out = dict(gpu=list(range(len(out["node_index"]))), **out)
    return out


def _rows(con, series, run_id):
    c = columns(con, series, run_id)
    names = list(c)
    return [dict(zip(names, values)) for values in zip(*(c[n] for n in names))]


def jobs(con, run_id):
    """Job records of a run in job_index order: job_index, job_id, model, user, arrival_s, start_s, end_s, gpus,
    gpu_type, restarts, gpu_seconds, cost_usd, ideal_s, nodes, demand, excluded_from_average, queue_s, jct_s."""
    return _rows(con, "jobs", run_id)


def intervals(con, run_id):
    """Allocation intervals of a run: job_index, gpu, start_s, end_s (join gpus/jobs on run_id and gpu/job_index)."""
    return _rows(con, "intervals", run_id)


def decisions(con, run_id):
    """Policy invocations of a run: sim_time_s, wall_s, queued, running."""
    return _rows(con, "decisions", run_id)


def utilization(con, run_id):
    """Utilisation samples of a run: time_s, busy_gpus, busy_by_type (a list in run_gpu_types order)."""
    return _rows(con, "utilization", run_id)


def gpus(con, run_id):
    """The cluster's GPUs of a run (schema 11's gpu chunks): gpu (global index, as in the intervals), node_index,
    node, gpu_type."""
    return _rows(con, "gpus", run_id)


def job_events(con, run_id):
    """Job events of a run in the order they happened: job_index, time_s, kind (suspend, resume, drop, profile),
    detail (a drop's reason, the seconds a profile asked for, else empty)."""
    return _rows(con, "job_events", run_id)


if __name__ == "__main__":
    import sqlite3

    if len(sys.argv) != 4 or sys.argv[2] not in _TABLES:
        sys.exit("usage: orrery_db.py DB.sqlite jobs|intervals|decisions|utilization|job_events|gpus RUN_ID  (prints CSV)")
    import csv

    rows = _rows(sqlite3.connect(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
    if rows:
        w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
