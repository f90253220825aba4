#!/usr/bin/env bash
# Here: the tables and plots of the GPU runs' JSON (bench/segreduce/report.py needs matplotlib, installed
# from PyPI into build/bench-venv on first use).
#   bash bench/segreduce/report.sh [segreduce RUN.json ...] (default: the latest full run, below)
#   (bench/results/scan/scan.json, when present, is reported as well)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=build/bench-venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q matplotlib numpy; }
# (the latest runs, a later one's configurations replacing an earlier one's: 2026-12-03's runs measured float32
# and int32 after sr_warp<L>t became the adaptive plan's, float64 partly; the rest of float64 is 2026-12-02's;
# 2026-12-04's: float32 1024 items and heavy-tailed again, after the Numba tail fix, then the whole of float32 with
# the block plan's fixed grid; the 2026-12-06 runs came on an H100 and are not merged: the whole of float32 on
# that day's code is reported apart, `bash bench/segreduce/report.sh bench/results/segreduce/h100/s32_f32.json`)
r=bench/results/segreduce
[ $# -gt 0 ] || set -- $r/s24_f32_f64.json $r/s24_i32.json $r/s26_f32_f64part.json $r/s26_i32_f64part.json \
  $r/s27_f32_1024_heavy.json $r/s28_f32.json
"$venv/bin/python" bench/segreduce/report.py "$@"
scan=bench/results/scan/scan.json
if [ -f "$scan" ]; then "$venv/bin/python" bench/scan/scan.py --report "$scan"; fi
