#!/usr/bin/env bash
# On the GPU machine (device tool), carrying .gpubench (bench/segreduce/prepare.sh) and .gpuwheels
# (tests/gpu/prepare_python.sh): what issue 10 measures, in two calls that each fit the tool's 10 minutes.
#
#   bash bench/segreduce/device.sh checks          # check_tail.py (C, then Numba; a hang is reported, not
#                                                  # waited for), bench/scan
#   bash bench/segreduce/device.sh suite [ARGS]    # the segmented_reduce GPU suite (every dtype and operator:
#                                                  # about 12 minutes, two calls; ARGS: its --filter, --jobs)
#   bash bench/segreduce/device.sh bench [opts]    # bench/segreduce/bench.py --numba [opts] (every type; NUMBA=0:
#                                                  # without --numba)
#   bash bench/segreduce/device.sh quick [opts]    # check_tail.py (C, Numba), then the bench of float32 only
#   bash bench/segreduce/device.sh explore [opts]  # check_tail.py (C), then bench.py --explore (f32 sum, cooplink's
#                                                  # build alone, no Numba)
#   bash bench/segreduce/device.sh profile [LENGTHS]  # ncu (hardware counters) on each cooplink kernel, the read
#                                                  # ceiling and CUB, f32 sum, once each: $OUT/ncu_<length>.csv
#                                                  # and launches_<length>.txt; here: bench/segreduce/profile.py
#                                                  # (NUMBA=1: the Numba kernels as well; OPS=sum,max:
#                                                  # both operators)
#
# Each stage's limit in seconds can be lowered to fit several modes in one call: SUITE_S, CHECK_S, BENCH_S
# (and NO_SCAN=1: checks without bench/scan; NO_CHECK=1: explore without check_tail).
# Logs and results go to $OUT (segreduce.json is rewritten after every configuration, so a run cut short
# keeps what it measured).
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=${OUT:-/tmp}
what=${1:-checks}
shift || true
# what was carried must be what this tree builds (a stale .gpubench or wheel measures older code)
. bench/segreduce/modules.sh  # (BM_SOURCES)
for f in "${BM_SOURCES[@]}"; do
  cmp -s "$f" ".gpubench/src/$(basename "$f")" || { echo "device.sh: .gpubench is older than $f: run bench/segreduce/prepare.sh" >&2; exit 2; }
done
for f in $(cd python/cooplink/numba && ls *.py); do  # (every module: a stale one measured old code once)
  python3 -c 'import glob, sys, zipfile; z = zipfile.ZipFile(glob.glob(".gpuwheels/cooplink-*.whl")[0])
sys.stdout.buffer.write(z.read(next(n for n in z.namelist() if n.endswith("/cooplink/numba/" + sys.argv[1]))))' "$f" |
    cmp -s - "python/cooplink/numba/$f" ||
    { echo "device.sh: the wheel in .gpuwheels is older than python/cooplink/numba/$f: run tests/gpu/prepare_python.sh --wheel-only" >&2; exit 2; }
done
site=${TMPDIR:-/tmp}/cooplink-site
rm -rf "$site"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpuwheels/cooplink-*.whl
export PYTHONPATH=$site PYTHONUNBUFFERED=1 COOPLINK_CACHE=${COOPLINK_CACHE:-/tmp/cooplink-cache}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader

stage() {  # stage NAME SECONDS COMMAND...: the command's output in $OUT/NAME.log, its status and tail here
  local name=$1 secs=$2 t0=$SECONDS
  shift 2
  timeout "$secs" "$@" > "$out/$name.log" 2>&1
  echo "== $name: rc $? in $((SECONDS - t0)) s"
  grep -v -e '^  ' -e Warning -e 'warnings.warn' "$out/$name.log" | cut -c1-300 | tail -n "${TAIL:-25}"
}

case "$what" in
  checks)
    COOPLINK_CATALOG=$repo/.gpubench/catalog stage check "${CHECK_S:-180}" python3 bench/segreduce/check_tail.py --numba
    [ "${NO_SCAN:-0}" = 1 ] || TAIL=10 stage scan 150 python3 bench/scan/scan.py --gpubench .gpubench --out "$out" --rounds 3 --types f32 \
      --skip-explore # (the chain's explore builds the launcher passed over)
    ;;
  suite)  # (a worker a dtype and operator, compiling its kernels: 2026-12-06, H100, 16 cores, a cold cache: the
          # 1- and 2-byte types 96 cases in 300 s, float64, int64 and uint64 72 cases in 182 s with --jobs 12)
    (cd /tmp && TAIL=12 stage suite "${SUITE_S:-570}" python3 "$repo/tests/gpu/segmented_suite.py" "$@")
    grep -c '^ok' "$out/suite.log" | sed 's/^/suite cases ok: /'
    grep '^FAIL' "$out/suite.log" | cut -c1-300 | head -20
    ;;
  bench)
    numba=--numba
    [ "${NUMBA:-1}" = 0 ] && numba=  # (NUMBA=0: the CUDA C kernels and baselines alone, no Numba compiles)
    COOPLINK_CATALOG=$repo/.gpubench/catalog TAIL=50 stage bench "${BENCH_S:-560}" \
      python3 bench/segreduce/bench.py --gpubench .gpubench --out "$out" $numba --verbose "$@"
    ;;
  quick)
    COOPLINK_CATALOG=$repo/.gpubench/catalog stage check 100 python3 bench/segreduce/check_tail.py --numba
    COOPLINK_CATALOG=$repo/.gpubench/catalog TAIL=50 stage bench 420 \
      python3 bench/segreduce/bench.py --gpubench .gpubench --out "$out" --numba --types f32 "$@"
    ;;
  explore)  # the CUDA C kernels' checks, then the other plans of the adaptive launcher, f32 sum, no Numba
    [ "${NO_CHECK:-0}" = 1 ] || COOPLINK_CATALOG=$repo/.gpubench/catalog stage check 120 python3 bench/segreduce/check_tail.py
    COOPLINK_CATALOG=$repo/.gpubench/catalog TAIL=60 stage bench 420 \
      python3 bench/segreduce/bench.py --gpubench .gpubench --out "$out" --types f32 --ops sum --explore \
      --builds cooplink "$@"
    ;;
  profile)
    metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,sm__cycles_elapsed.avg
    metrics+=,launch__grid_size,launch__registers_per_thread,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum
    metrics+=,smsp__inst_executed.sum,regex:smsp__warp_issue_stalled_.*_per_warp_active.pct
    for len in ${1:-128 1024 1M heavy}; do
      COOPLINK_CATALOG=$repo/.gpubench/catalog TAIL=4 stage "profile" 280 \
        ncu --clock-control none -k 'regex:read_bw|sr_|Segmented' --metrics "$metrics" --csv --page raw --print-units base \
          --log-file "$out/ncu_$len.csv" python3 bench/segreduce/bench.py --gpubench .gpubench --out "/tmp/p_$len" \
          --profile --types f32 --ops "${OPS:-sum}" --lengths "$len" ${NUMBA:+--numba}
      cp "/tmp/p_$len/launches.txt" "$out/launches_$len.txt"
    done
    ;;
  *) echo "device.sh: checks, suite, bench, quick, explore or profile" >&2; exit 2 ;;
esac
