#!/usr/bin/env bash
# The main job: set-up and build (with the small catalog/ci.json catalog: what the example needs, for
# sm_80 and sm_90; packaging/release.sh builds the whole default catalog), link the segmented-reduction
# example against it with the zero-overhead proof, and where a GPU exists run and verify it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/build.sh
arch=$(build/cooplink device 2>/dev/null || echo sm_90)
echo "== catalog build/catalog (catalog/ci.json)"
build/cooplink catalog verify build/catalog
echo "== link examples/segreduce/segreduce.cu for $arch"
build/cooplink link --arch "$arch" --catalog build/catalog --cache-dir build/cache --verbose \
  examples/segreduce/segreduce.cu -o build/segreduce.cubin --ptx build/segreduce.ptx
if grep -qE '^\s*\.func|^\s*call' build/segreduce.ptx; then
  echo "main: the linked PTX still has a function or a call" >&2
  exit 1
fi
echo "zero overhead: the linked PTX has no .func and no call; see the stack frame and spills above"
echo "== run"
build/examples/segreduce_run --catalog build/catalog
