#!/usr/bin/env bash
# On the GPU machine (device tool, carry .gpubench from bench/segreduce/prepare.sh): issue 10's figures in one
# call under the tool's 10 minutes: the segmented scan of every type (the launcher's builds; the chain's explore
# builds it passes over are left out), then the float32 segmented reduction (CUDA C kernels and baselines).
#   bash bench/refresh.sh   -> $OUT/scan.json, $OUT/scan.log, $OUT/explore.{json,log} (f32 sum at short lengths:
#                              sr_wrun, the plans, the variant builds), $OUT/segreduce.json, $OUT/segreduce.log
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
t0=$SECONDS
timeout "${SCAN_S:-300}" bash bench/scan/run.sh --rounds 3 --skip-explore \
  > "$out/scan.log" 2>&1
echo "== scan: rc $? in $((SECONDS - t0)) s"
grep -E '^scan|wrong results' "$out/scan.log" | cut -c1-200
t0=$SECONDS  # (sr_wrun against the plans at the short lengths, 2026-12-07; the input loaded with LOAD_CS and the results'
# writes, thirteenth session: prepare.sh's nost, cs, lcs and lcsel builds, each timed as the launcher's plan)
timeout "${EXPLORE_S:-150}" bash bench/segreduce/run.sh --rounds 3 --types f32 --ops sum --explore --builds cooplink \
  --variants nost,cs,lcs,lcsel --lengths 128,32,1024,random,heavy > "$out/explore.log" 2>&1
echo "== explore: rc $? in $((SECONDS - t0)) s"
cp "$out/segreduce.json" "$out/explore.json" 2>/dev/null
python3 - "$out/explore.json" <<'PY' || true
import json, sys  # each length: the launcher's plan and share, sr_wrun alone, the plan's kernel of each build
for c in json.load(open(sys.argv[1]))["configs"]:
    k = c["kernels"]
    plan = k["cooplink adaptive"].get("plan", "?")
    cols = [f"adaptive {k['cooplink adaptive'].get('share', 0):.3f}", f"wrun {k.get('cooplink wrun', {}).get('share', 0):.3f}"]
    cols += [f"{lab.split('[')[1][:-1]} {r['share']:.3f}" for lab, r in k.items()
             if lab.startswith(f"plan {plan} [") and "share" in r]
    print(f"f32 sum {c['lengths']:>6} ({plan}): " + " | ".join(cols))
PY
t0=$SECONDS
timeout "${SEG_S:-240}" bash bench/segreduce/run.sh --rounds 3 --types f32 > "$out/segreduce.log" 2>&1
echo "== segreduce: rc $? in $((SECONDS - t0)) s"
grep -v -e '^  ' -e Warning "$out/segreduce.log" | cut -c1-200 | tail -20
