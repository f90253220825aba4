#!/usr/bin/env bash
# On the GPU machine (device tool, carry .gpubench from bench/segreduce/prepare.sh): issue 10's figures in one
# call under the tool's 10 minutes: the segmented scan of every type (the launcher's builds; the chain's explore
# builds it passes over are left out), then the float32 segmented reduction (CUDA C kernels and baselines).
#   bash bench/refresh.sh   -> $OUT/scan.json, $OUT/scan.log, $OUT/segreduce.json, $OUT/segreduce.log
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
t0=$SECONDS
timeout "${SCAN_S:-300}" bash bench/scan/run.sh --rounds 3 --skip-explore \
  > "$out/scan.log" 2>&1
echo "== scan: rc $? in $((SECONDS - t0)) s"
grep -E '^scan|wrong results' "$out/scan.log" | cut -c1-200
t0=$SECONDS
timeout "${SEG_S:-240}" bash bench/segreduce/run.sh --rounds 3 --types f32 > "$out/segreduce.log" 2>&1
echo "== segreduce: rc $? in $((SECONDS - t0)) s"
grep -v -e '^  ' -e Warning "$out/segreduce.log" | cut -c1-200 | tail -20
