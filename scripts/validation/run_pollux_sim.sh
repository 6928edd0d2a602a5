#!/bin/sh
# Runs Pollux's simulator (petuum/adaptdl, branch osdi21-artifact, simulator/) on Debian's python3 for its
# tiresias and optimus baselines (docs/experiments/sia.md). Usage:
#   run_pollux_sim.sh ARTIFACT_SIMULATOR_DIR POLICY WORKLOAD.csv [SIA_PROFILES_DIR]
# It copies the simulator to a scratch directory, links its traces/ to the profiles (sia/profiles: the
# unsuffixed files are Pollux's), makes the pollux import optional (pymoo is not in Debian; only the pollux
# policy needs it) and puts the autograd stand-in on PYTHONPATH. Prints the simulator's last "Average JCT"
# and writes the per-job JCTs as job_id,jct_s,end_s (for compare_jobs.py).
set -eu
src=$1; policy=$2; workload=$3
here=$(cd "$(dirname "$0")" && pwd)
profiles=${4:-$here/../../../shared/data/sia/profiles}
work=$(mktemp -d /tmp/pollux-sim.XXXXXX)
cp "$src"/*.py "$work"/
ln -s "$(cd "$profiles" && pwd)" "$work/traces"
python3 - "$work/simulator.py" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("from pollux import PolluxPolicy\n",
              "try:\n    from pollux import PolluxPolicy\nexcept ImportError:  # pymoo: pollux policy only\n"
              "    class PolluxPolicy: pass\n")
open(p, "w").write(s)
PY
cd "$work"
PYTHONPATH="$here/pollux_standins" /usr/bin/python3 simulator.py --policy "$policy" "$workload" > "$work/log.txt" 2>&1
grep "Average JCT" "$work/log.txt" | tail -1
# Per-job JCTs (the last "Completed jobs" dict) as job_id,jct_s,end_s for compare_jobs.py.
/usr/bin/python3 - "$work/log.txt" "$workload" "$work/jcts.csv" <<'PY'
import ast, csv, sys
log, workload, out = sys.argv[1:4]
last = [l for l in open(log) if l.startswith("{")][-1]
jcts = ast.literal_eval(last)
submit = {r["name"]: float(r["time"]) for r in csv.DictReader(open(workload))}
with open(out, "w") as f:
    f.write("job_id,jct_s,end_s\n")
    for k, v in jcts.items():
        f.write(f"{k},{v},{submit[k] + v}\n")
PY
echo "log: $work/log.txt; per-job JCTs: $work/jcts.csv"
