#!/usr/bin/env bash
# On the GPU machine (device tool): the segmented-scan benchmark; carry .gpubench (bench/segreduce/prepare.sh).
#   bash bench/scan/run.sh [scan.py options]
#   bash bench/scan/run.sh profile LENGTHS REGEX   # ncu's counters for the float32 kernels whose labels match REGEX
#                                                  # (scan.py --only), once each: $OUT/ncu_scan.csv
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = profile ]; then
  metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
  metrics+=,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  metrics+=,launch__occupancy_limit_registers,sm__maximum_warps_per_active_cycle_pct,lts__t_requests_srcunit_tex.sum
  metrics+=,smsp__inst_executed.sum,regex:smsp__warp_issue_stalled_.*_per_warp_active.pct
  PYTHONUNBUFFERED=1 ncu --clock-control none -k regex:sc_ --metrics "$metrics" --csv --page raw --print-units base \
    --log-file "${OUT:-/tmp}/ncu_scan.csv" python3 bench/scan/scan.py --gpubench .gpubench --out /tmp/scan_profile \
    --types f32 --rounds 0 --lengths "$2" --only "$3"
  exit
fi
PYTHONUNBUFFERED=1 python3 bench/scan/scan.py --gpubench .gpubench --out "${OUT:-/tmp}" "$@"
