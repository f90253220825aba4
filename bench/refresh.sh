#!/usr/bin/env bash
# On the GPU machine (device tool, carry .gpubench from bench/segreduce/prepare.sh): issue 10's figures in one
# call under the tool's 10 minutes: the segmented scan of every type (the launcher's builds; the chain's explore
# builds it passes over are left out), then the float32 segmented reduction (CUDA C kernels and baselines).
#   bash bench/refresh.sh   -> $OUT/scan.json, $OUT/scan.log, $OUT/explore.{json,log} (f32 sum: sr_wrun and the plans
#                              at short lengths), $OUT/segreduce.json, $OUT/segreduce.log
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
t0=$SECONDS
timeout "${SCAN_S:-300}" bash bench/scan/run.sh --rounds 3 --skip-explore \
  > "$out/scan.log" 2>&1
echo "== scan: rc $? in $((SECONDS - t0)) s"
grep -E '^scan|wrong results' "$out/scan.log" | cut -c1-200
t0=$SECONDS  # (sr_wrun against the plans at the short lengths: bench/README, 2026-12-07)
timeout "${EXPLORE_S:-90}" bash bench/segreduce/run.sh --rounds 3 --types f32 --ops sum --explore --builds cooplink \
  --lengths 128,32,heavy,heavy-short,1024 > "$out/explore.log" 2>&1
echo "== explore: rc $? in $((SECONDS - t0)) s"
grep -v -e '^  ' -e Warning "$out/explore.log" | grep -o -e '^f32 sum *[^:]*' -e 'wrun [0-9.]*' -e 'alone [0-9.]*' \
  -e 'adaptive [0-9.]*' -e 'plan wrun32 defer>8192 [0-9.]*' -e 'wrong [0-9]*' | paste -sd' ' | sed 's/ f32 sum/\nf32 sum/g'
cp "$out/segreduce.json" "$out/explore.json" 2>/dev/null
t0=$SECONDS
timeout "${SEG_S:-240}" bash bench/segreduce/run.sh --rounds 3 --types f32 > "$out/segreduce.log" 2>&1
echo "== segreduce: rc $? in $((SECONDS - t0)) s"
grep -v -e '^  ' -e Warning "$out/segreduce.log" | cut -c1-200 | tail -20
