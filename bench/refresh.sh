#!/usr/bin/env bash
# On the GPU machine (device tool, carry .gpubench from bench/segreduce/prepare.sh): issue 10's figures in one
# call under the tool's 10 minutes: the segmented scan of every type (the launcher's builds; the chain's explore
# builds it passes over are left out), then the float32 segmented reduction (CUDA C kernels and baselines).
#   bash bench/refresh.sh   -> $OUT/refresh.tgz: scan.{json,log}, explore_{warm,cold}.{json,log} (prepare.sh's
#                              float32 builds, L2 warm and cold), explore_<type>.{json,log} (the other types'),
#                              segreduce.{json,log} (float32, every kernel and baseline; SEG_L2=cold: L2 flushed)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
t0=$SECONDS
if [ "${SCAN_S:-300}" != 0 ]; then  # (SCAN_S=0: no scan stage)
  timeout "${SCAN_S:-300}" bash bench/scan/run.sh --rounds 3 --skip-explore > "$out/scan.log" 2>&1
  echo "== scan: rc $? in $((SECONDS - t0)) s"
  grep -E '^scan|wrong results' "$out/scan.log" | cut -c1-200
fi
# (the kernels against their plain loads, plain, and the results written with an L2 policy, el evict_last,
# ef evict_first, or by st.global.cs, st: prepare.sh's builds, each timed as the launcher's plan; fourteenth session;
# each timed warm, launches back to back, and cold, each after an L2 flush (bench.py --l2): back to back, the ld.cs
# builds keep their offsets and results in L2 from one launch to the next, which a single call does not find)
for l2 in ${EXPLORE_L2:-warm cold}; do
  t0=$SECONDS
  timeout "${EXPLORE_S:-150}" bash bench/segreduce/run.sh --rounds 3 --types f32 --ops sum --explore --builds cooplink \
    --variants "${EXPLORE_F32:-plain,el,ef,st}" --lengths "${EXPLORE_LENGTHS:-128,32,1024,random,heavy,8192,65536,1M}" \
    --l2 "$l2" > "$out/explore_$l2.log" 2>&1
  echo "== explore f32, L2 $l2: rc $? in $((SECONDS - t0)) s"
  cp "$out/segreduce.json" "$out/explore_$l2.json" 2>/dev/null
done
for tv in ${EXPLORE_OTHER-f64:plain,el i32:plain,el}; do  # the other types' builds, type:variants
  t0=$SECONDS
  timeout "${EXPLORE_OTHER_S:-80}" bash bench/segreduce/run.sh --rounds 3 --types "${tv%%:*}" --ops sum --explore \
    --builds cooplink --variants "${tv#*:}" --lengths "${EXPLORE_LENGTHS:-128,32,1024,random,heavy,8192,65536,1M}" \
    > "$out/explore_${tv%%:*}.log" 2>&1
  echo "== explore ${tv%%:*}: rc $? in $((SECONDS - t0)) s"
  cp "$out/segreduce.json" "$out/explore_${tv%%:*}.json" 2>/dev/null
done
python3 - "$out"/explore*.json <<'PY' || true
import json, sys  # each length: the launcher's plan and share, the plan's kernel of each build
for f in sys.argv[1:]:
    print(f)
    for c in json.load(open(f))["configs"]:
        k = c["kernels"]
        plan = k["cooplink adaptive"].get("plan", "?")
        cols = [f"adaptive {k['cooplink adaptive'].get('share', 0):.3f}"]
        cols += [f"{lab.split('[')[1][:-1]} {r['share']:.3f}" for lab, r in k.items()
                 if lab.startswith(f"plan {plan} [") and "share" in r]
        print(f"{c['type']} {c['op']} {c['lengths']:>6} ({plan}): " + " | ".join(cols))
PY
t0=$SECONDS
timeout "${SEG_S:-240}" bash bench/segreduce/run.sh --rounds 3 --types f32 --l2 "${SEG_L2:-warm}" > "$out/segreduce.log" 2>&1
echo "== segreduce: rc $? in $((SECONDS - t0)) s"
grep -v -e '^  ' -e Warning "$out/segreduce.log" | cut -c1-200 | tail -20
# the device tool brings back eight files at most: every log and JSON in one archive
tar -C "$out" -czf "$out/refresh.tgz" --remove-files $(cd "$out" && ls -- *.log *.json 2>/dev/null)
