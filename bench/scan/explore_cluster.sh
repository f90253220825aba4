#!/usr/bin/env bash
# On the GPU machine (device tool, carry .gpubench): sc_block on clusters (scan.py CLUSTER, scan.cu SC_CLUSTER).
#   bash bench/scan/explore_cluster.sh   -> $OUT/cluster_<type>.log, $OUT/<type>/scan.json, $OUT/probe.log
#   (EXPLORE_RUNS='TYPE LENGTHS;...' the timed runs, PROBE_LENGTHS='...' the lengths c4 is checked at alone)
set -uo pipefail
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
for L in ${PROBE_LENGTHS-64 1024 random 32}; do  # (each its own process: a fault names its length)
  timeout 60 python3 bench/scan/scan.py --gpubench .gpubench --out /tmp/chk --types f32 --rounds 0 --lengths $L \
    --only 'cooplink block scan c4$' > /tmp/c.log 2>&1
  echo "c4 f32 $L: rc=$? $(grep -E 'wrong|Error:' /tmp/c.log | tail -1 | cut -c1-160)"
done | tee "${OUT:-/tmp}/probe.log"
IFS=';' read -ra runs <<< "${EXPLORE_RUNS:-f32 4096,8192,16384,32768,65536,1M;i32 4096,65536,1M,random;f64 4096,65536,1M,random}"
for t in "${runs[@]}"; do
  read -r tc lens <<< "$t"
  timeout 200 python3 bench/scan/scan.py --gpubench .gpubench --out "${OUT:-/tmp}/$tc" --types $tc --rounds 3 \
    --lengths $lens --skip 'chain scan .' > "${OUT:-/tmp}/cluster_$tc.log" 2>&1
  echo "$tc rc=$?"; grep -E "^scan|wrong" "${OUT:-/tmp}/cluster_$tc.log" | cut -c1-150
done
