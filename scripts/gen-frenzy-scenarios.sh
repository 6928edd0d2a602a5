#!/bin/sh
# Regenerates Frenzy's shipped scenarios (docs/experiments/frenzy.md): NewWorkload task queues of
# 30 and 60 jobs, all enqueued at t = 0 in seeded order, on the simulated cluster and on the testbed.
set -eu
cd "$(dirname "$0")/.."
gen=scripts/gen-newworkload.py
for n in 30 60; do
    python3 $gen --jobs $n --seed 1 --gap-s 0 --basis marp --reject-infeasible --cluster sim \
        --policies frenzy opportunistic --name "Frenzy NewWorkload $n (simulated 44-GPU cluster)" \
        --description "Frenzy's NewWorkload task queue of $n GPT-2/BERT jobs, all submitted at t = 0 in seeded order, on the simulated heterogeneous cluster (3x8 RTX 2080 Ti, 2x8 A100 40GB, 1x4 Quadro RTX 6000)." \
        > data/scenarios/frenzy-newworkload-$n.json
    python3 $gen --jobs $n --seed 1 --gap-s 0 --basis marp --reject-infeasible --cluster testbed \
        --policies frenzy opportunistic --name "Frenzy NewWorkload $n (real testbed, 11 GPUs)" \
        --description "Frenzy's NewWorkload task queue of $n GPT-2/BERT jobs, all submitted at t = 0 in seeded order, on Frenzy's real testbed: 2x A100 40GB PCIe, 1x A100 40GB, 4x A800 80GB NVLink, 2 nodes x 2 A100 80GB PCIe." \
        > data/scenarios/frenzy-testbed-$n.json
done
