#!/usr/bin/env bash
# Here: the tables and plots of the GPU runs' JSON (bench/segreduce/report.py needs matplotlib, installed
# from PyPI into build/bench-venv on first use).
#   bash bench/segreduce/report.sh [bench/results/segreduce/segreduce.json] [bench/results/scan/scan.json]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=build/bench-venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q matplotlib numpy; }
"$venv/bin/python" bench/segreduce/report.py "${1:-bench/results/segreduce/segreduce.json}"
scan=${2:-bench/results/scan/scan.json}
if [ -f "$scan" ]; then "$venv/bin/python" bench/scan/scan.py --report "$scan"; fi
