"""The talk's segmented reduction in Numba with cooplink primitives: one block per segment, tiles of
256 threads x 4 items loaded striped with a guarded load for the ragged end, reduced with BlockReduce.
Checked against numpy for float32, float64 and int32.

    python examples/segreduce/segreduce_numba.py [--segments 4096] [--mean 2000]
"""

import argparse
import sys

import numpy as np
import numba
from numba import cuda

import cooplink.numba as coop

numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0

THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS


def make_segreduce(dtype):
    nbt = numba.from_dtype(np.dtype(dtype))
    load = coop.block.make_load(dtype, THREADS, ITEMS, "striped")
    block_sum = coop.block.make_sum(dtype, THREADS, ITEMS)

    @cuda.jit
    def segreduce(d_in, offsets, d_out):
        begin, end = offsets[cuda.blockIdx.x], offsets[cuda.blockIdx.x + 1]
        items = coop.local.array(ITEMS, nbt)
        total = nbt(0)
        for tile in range(begin, end, TILE):
            load(d_in[tile:], items, end - tile, 0)  # guarded: the last tile is partial
            total += block_sum(items)                # defined in thread 0; the call ends with a barrier
        if cuda.threadIdx.x == 0:
            d_out[cuda.blockIdx.x] = total
    return segreduce


def run(dtype, segments, mean, rng):
    lengths = rng.exponential(mean, segments).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    n = int(offsets[-1])
    x = rng.integers(-100, 100, n).astype(dtype) if np.dtype(dtype).kind == "i" else rng.random(n).astype(dtype)
    out = cuda.to_device(np.full(segments, -7, dtype))  # poisoned
    make_segreduce(dtype)[segments, THREADS](cuda.to_device(x), cuda.to_device(offsets), out)
    got = out.copy_to_host()
    want = np.add.reduceat(np.append(x.astype(np.float64), 0), offsets[:-1])
    want[lengths == 0] = 0
    if np.dtype(dtype).kind == "i":
        ok = np.array_equal(got, want.astype(dtype))
    else:
        ok = np.allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3 if dtype == np.float32
                         else 1e-9)
    err = np.max(np.abs(got.astype(np.float64) - want)) if segments else 0.0
    print(f"segreduce {np.dtype(dtype).name}: {segments} segments, {n} items: {'ok' if ok else 'WRONG'} "
          f"(max abs error {err:.3g})")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=4096)
    ap.add_argument("--mean", type=float, default=2000)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    results = [run(t, args.segments, args.mean, rng) for t in (np.float32, np.float64, np.int32)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
