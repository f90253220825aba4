#!/usr/bin/env bash
# Here: the tables and plots of the GPU runs' JSON (bench/segreduce/report.py needs matplotlib, installed
# from PyPI into build/bench-venv on first use).
#   bash bench/segreduce/report.sh [segreduce RUN.json ...] (default: the latest full run, below)
#   (bench/results/scan/scan.json, when present, is reported as well)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=build/bench-venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q matplotlib numpy; }
[ $# -gt 0 ] || set -- bench/results/segreduce/s24_f32_f64.json bench/results/segreduce/s24_i32.json
"$venv/bin/python" bench/segreduce/report.py "$@"
scan=bench/results/scan/scan.json
if [ -f "$scan" ]; then "$venv/bin/python" bench/scan/scan.py --report "$scan"; fi
