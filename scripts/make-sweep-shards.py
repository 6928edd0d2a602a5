#!/usr/bin/env python3
# Makes N shard stores for timing `orrery-cli runs merge` (docs/performance.md, "Sweeps"): copies of one run store
# (e.g. a one-point `sweep run`), each with a fresh run uid and point key so that every copy is merged.
# Usage: scripts/make-sweep-shards.py ONE.sqlite N   (writes shards/shard-I.sqlite under the current directory)
import shutil, sqlite3, sys, os, uuid
src, n = sys.argv[1], int(sys.argv[2])
os.makedirs("shards", exist_ok=True)
for i in range(n):
    dst = f"shards/shard-{i}.sqlite"
    shutil.copyfile(src, dst)
    c = sqlite3.connect(dst)
    c.execute("UPDATE runs SET uid = ?", (uuid.uuid4().hex,))
    c.execute("UPDATE sweep_points SET point_key = ?", (f"{i:016x}",))
    c.commit(); c.close()
