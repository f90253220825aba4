#!/usr/bin/env bash
# Set-up, build and the whole CPU test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/build.sh
meson test -C build --print-errorlogs --num-processes 1
# The release tarball (with the small CI catalog; the release itself packs the default one), unpacked
# and used from elsewhere.
tarball=$(bash packaging/release.sh --catalog ci --out build/dist | tail -1)
bash tests/install/run.sh --tarball "$tarball" .
# The Python layer as a user installs it (the README's pip line; here with the small CI catalog inside the
# wheel, which the default one's 17 minutes of building would not fit beside the rest), numba-cuda from
# PyPI, its CPU tests.
bash tests/python/run.sh -Csetup-args=-Dcatalog=ci
# Hardening (tests/fuzz/README.md, tests/sanitize/run.sh): every fuzz target for 60 s in all, its
# regressions and the determinism check; the CPU suite under sanitizers.
bash tests/fuzz/run.sh 60
bash tests/sanitize/run.sh
