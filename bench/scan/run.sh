#!/usr/bin/env bash
# On the GPU machine (device tool): the segmented-scan benchmark; carry .gpubench (bench/segreduce/prepare.sh).
#   bash bench/scan/run.sh [scan.py options]
set -uo pipefail
cd "$(dirname "$0")/../.."
PYTHONUNBUFFERED=1 python3 bench/scan/scan.py --gpubench .gpubench --out "${OUT:-/tmp}" "$@"
