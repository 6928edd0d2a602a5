"""Read the column-chunked series of an Orrery run store with the Python standard library.

The long per-run series (allocation intervals, utilisation samples, policy decisions) are kept as
chunks of little-endian int32/float64 arrays (docs/database.md, "Column chunks"). This module turns
them into plain lists of dicts (or dicts of columns) that pandas takes as they are:

    import sqlite3, pandas as pd, orrery_db
    con = sqlite3.connect("runs.sqlite")
    iv = pd.DataFrame(orrery_db.intervals(con, run_id=3))

No third-party package is needed; with numpy, `np.frombuffer(blob, "<f8")` reads a column as well.
"""

import array
import sys

_INT32 = "i"
_FLOAT64 = "d"

_TABLES = {
    "intervals": ("interval_chunks", [("job_index", _INT32), ("gpu", _INT32), ("start_s", _FLOAT64), ("end_s", _FLOAT64)]),
    "decisions": ("decision_chunks", [("sim_time_s", _FLOAT64), ("wall_s", _FLOAT64), ("queued", _INT32), ("running", _INT32)]),
    "utilization": ("utilization_chunks", [("time_s", _FLOAT64), ("busy_gpus", _INT32), ("busy_by_type", _INT32)]),
}


def _decode(blob, code):
    a = array.array(code)
    if a.itemsize != (4 if code == _INT32 else 8):
        raise RuntimeError("this platform's array type %r is not %d bytes" % (code, a.itemsize))
    a.frombytes(blob)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tolist()


def columns(con, series, run_id):
    """One run's series as a dict of equal-length column lists (series: intervals, decisions or utilization)."""
    table, cols = _TABLES[series]
    names = ", ".join(name for name, _ in cols)
    extra = ", gpu_types" if series == "utilization" else ""
    out = {name: [] for name, _ in cols}
    for row in con.execute(
        "SELECT records%s, %s FROM %s WHERE run_id = ? ORDER BY chunk_index" % (extra, names, table), (run_id,)
    ):
        records = row[0]
        blobs = row[2:] if extra else row[1:]
        for (name, code), blob in zip(cols, blobs):
            values = _decode(blob, code)
            if name == "busy_by_type":
                types = row[1]
                values = [values[i * types:(i + 1) * types] for i in range(records)]
            if len(values) != records:
                raise ValueError("%s: run %s: column %s has %d values, expected %d" % (table, run_id, name, len(values), records))
            out[name].extend(values)
    return out


def _rows(con, series, run_id):
    c = columns(con, series, run_id)
    names = list(c)
    return [dict(zip(names, values)) for values in zip(*(c[n] for n in names))]


def intervals(con, run_id):
    """Allocation intervals of a run: job_index, gpu, start_s, end_s (join gpus/jobs on run_id and gpu/job_index)."""
    return _rows(con, "intervals", run_id)


def decisions(con, run_id):
    """Policy invocations of a run: sim_time_s, wall_s, queued, running."""
    return _rows(con, "decisions", run_id)


def utilization(con, run_id):
    """Utilisation samples of a run: time_s, busy_gpus, busy_by_type (a list in run_gpu_types order)."""
    return _rows(con, "utilization", run_id)


if __name__ == "__main__":
    import sqlite3

    if len(sys.argv) != 4 or sys.argv[2] not in _TABLES:
        sys.exit("usage: orrery_db.py DB.sqlite intervals|decisions|utilization RUN_ID  (prints CSV)")
    import csv

    rows = _rows(sqlite3.connect(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
    if rows:
        w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
