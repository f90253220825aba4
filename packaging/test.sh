#!/usr/bin/env bash
# Set-up, build and the whole CPU test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/build.sh
meson test -C build --print-errorlogs --num-processes 1
