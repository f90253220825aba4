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
# The Python layer as a user installs it (the README's pip line, the default catalog inside the wheel),
# numba-cuda from PyPI, its CPU tests.
bash tests/python/run.sh
