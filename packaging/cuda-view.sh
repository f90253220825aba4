#!/usr/bin/env bash
# usage: cuda-view.sh DEST [CUDA_ROOT]
# nvcc's offline LTO device link (nvcc -dlto, nvlink) loads <toolkit>/nvvm/lib64/libnvvm.so. Some
# toolkit installs (the CUDA images of these machines among them) have libnvvm only in lib64, and
# nvcc -dlto then fails with "nvlink fatal: elfLink linker library load error". This makes DEST a
# view of the toolkit with that layout: real bin/ and nvvm/ folders of symbolic links, plus
# nvvm/lib64/libnvvm.so; use DEST/bin/nvcc. A normal toolkit install (the cuda-nvvm package) already
# has nvvm/lib64 and needs none of this. Idempotent.
set -euo pipefail
dest=${1:?usage: cuda-view.sh DEST [CUDA_ROOT]}
cuda=${2:-${CUDA_HOME:-/usr/local/cuda}}
cuda=$(cd "$cuda" && pwd -P)
if [ -e "$cuda/nvvm/lib64/libnvvm.so" ]; then
  echo "$cuda has nvvm/lib64/libnvvm.so: use $cuda/bin/nvcc as it is" >&2
fi
nvvm_lib=""
for cand in "$cuda/nvvm/lib64/libnvvm.so" "$cuda/lib64/libnvvm.so" "$cuda/lib/libnvvm.so"; do
  if [ -e "$cand" ]; then nvvm_lib=$cand; break; fi
done
[ -n "$nvvm_lib" ] || { echo "cuda-view: no libnvvm.so under $cuda" >&2; exit 1; }
mkdir -p "$dest/bin" "$dest/nvvm/lib64"
for f in "$cuda"/*; do
  n=$(basename "$f")
  [ "$n" = bin ] || [ "$n" = nvvm ] || ln -sfn "$f" "$dest/$n"
done
# bin/ must be a real folder: nvcc finds the toolkit as bin/.., which a linked folder would resolve
# to the real toolkit again
for f in "$cuda"/bin/*; do ln -sfn "$f" "$dest/bin/$(basename "$f")"; done
for f in "$cuda"/nvvm/*; do
  [ "$(basename "$f")" = lib64 ] || ln -sfn "$f" "$dest/nvvm/$(basename "$f")"
done
ln -sfn "$nvvm_lib" "$dest/nvvm/lib64/libnvvm.so"
echo "$dest/bin/nvcc"
