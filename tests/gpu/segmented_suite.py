"""GPU suite of cooplink.numba.segmented_reduce: every dtype and operator over segment-length mixes that
take every path (the logical-warp kernels, the block kernel, the run kernel sr_run, segments deferred to the tail and combined
from several chunks, empty segments, values not on a 16-byte boundary, one segment of everything, cupy
inputs), each call made twice (the work queue a call leaves must be clean for the next), outputs
poisoned first and compared for equality with a host reference (integer sums and products wrap around as
in C; float data chosen so that every order of operations gives the same result). Ends with
`N passed, M failed`.

    python tests/gpu/segmented_suite.py [--jobs N] [--filter REGEX]   (REGEX: searched in "<dtype> <op> <mix>")
"""
import argparse
import multiprocessing
import os
import re
import sys
import time

import numpy as np

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64"]
OPS = ["sum", "min", "max", "prod"]


def lengths(mix, rng, itemsize):
    from cooplink.numba import _segplan
    chunk = _segplan.chunk_items(itemsize)  # (the tail's chunk)
    if mix == "short":       # logical warps; empty segments among them
        return rng.integers(0, 300, 3000)
    if mix == "tiny":        # logical warps of 4 or 8 lanes (1-byte items: an unaligned head longer than them)
        return rng.integers(0, 24, 4000)
    if mix == "long":        # the block kernel; a segment of 19 chunks deferred to the tail and combined
        return np.array([0, 5, chunk + 3, 19 * chunk - 7, 1000, 3 * chunk, 0, 777])
    if mix == "warp-tail":   # logical warps, with two long segments deferred to the tail
        a = rng.integers(0, 120, 4000)
        a[[17, 2500]] = [5 * chunk + 11, 40000]
        return a
    if mix == "one":         # one segment of everything
        return np.array([300001])
    raise ValueError(mix)


MIXES = ["short", "tiny", "long", "warp-tail", "one", "short-unaligned"]


def data(dtype, op, n, rng):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        if op == "prod":
            return rng.integers(1, 4, n).astype(dt)      # wraps around, in any order the same
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100), n).astype(dt)
    if op == "prod":
        return rng.choice([-1.0, 1.0], n).astype(dt)
    if dt == np.float16:  # sparse +-1: every partial sum is an integer far below 2048
        return (rng.choice([-1.0, 1.0], n) * (rng.random(n) < 0.01)).astype(dt)
    return (rng.integers(-64, 65, n) / 8).astype(dt)     # multiples of 1/8: exact sums


def reference(x, offs, dtype, op):
    from cooplink.numba.segmented import identity
    dt = np.dtype(dtype)
    f = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    out = np.empty(len(offs) - 1, dt)
    for i in range(len(out)):
        seg = x[offs[i]:offs[i + 1]]
        if seg.size == 0:
            out[i] = identity(dt, op)
        elif dt.kind == "f" and op == "sum":
            out[i] = dt.type(np.sum(seg.astype(np.float64)))
        else:
            out[i] = f.reduce(seg, dtype=dt)
    return out


def run_unit(args):
    """The cases of one dtype and operator (a unit of its own: a worker cut off by a time limit loses only
    its unit, and the 44 units keep more cores busy than the 11 dtypes)."""
    dtype, op, filt = args
    import cupy as cp
    from numba import cuda
    import cooplink.numba as coop
    from cooplink.numba import segmented
    rng = np.random.default_rng(DTYPES.index(dtype) * len(OPS) + OPS.index(op))
    results = []
    dt = np.dtype(dtype)
    for mix in MIXES:
        name = f"{dtype} {op} {mix}"
        if filt and not re.search(filt, name):
            continue
        t0 = time.time()
        try:
            lens = lengths(mix.replace("-unaligned", ""), rng, dt.itemsize)
            offs = np.zeros(lens.size + 1, np.int64)
            np.cumsum(lens, out=offs[1:])
            n = int(offs[-1])
            skew = 3 if mix.endswith("unaligned") else 0   # values start 3 items past a 16-byte boundary
            x = data(dtype, op, n + skew, rng)
            ref = reference(x[skew:], offs, dtype, op)
            d_base = cuda.to_device(x)
            d_x = d_base[skew:]
            d_off = cp.asarray(offs.astype(np.int32))       # a cupy array: any __cuda_array_interface__
            d_out = cuda.device_array(lens.size, dt)
            plan = segmented.chosen_plan(n, lens.size, dt.itemsize)
            bad = []
            # the chosen plan, then sr_run (a block per run of consecutive segments), same deferral, and
            # the plan of before sr_warp<L>t (its warp kernels, still there through plan=) where it differs
            before = segmented._segplan.choose(n, lens.size, dt.itemsize, warpt=False)
            for p in (None, segmented._segplan.Plan("run", 0, plan.defer)) + ((before,) if before != plan else ()):
                for call, byte in enumerate((b"\x5a", b"\xa5")):  # two poisons: no reference equals both
                    poison = np.frombuffer(byte * dt.itemsize * lens.size, dt) if dt.kind in "iu" else \
                        np.full(lens.size, np.nan, dt)
                    d_out.copy_to_device(poison)
                    coop.segmented_reduce(d_x, d_off, d_out, op, plan=p)
                    got = d_out.copy_to_host()
                    wrong = np.flatnonzero(got != ref)  # (the poison, NaN or 0x5a.., never equals)
                    if wrong.size:
                        i = wrong[0]
                        bad.append(f"{p or plan} call {call + 1}: {wrong.size} wrong, segment {i} (length "
                                   f"{lens[i]}): got {got[i]!r}, want {ref[i]!r}")
            left = segmented.queue_words_left()
            if left:
                bad.append(f"{left} words of the work queue left non-zero")
            results.append((name, not bad, f"{plan}; {'; '.join(bad)}", time.time() - t0))
        except Exception as e:  # noqa: BLE001 (a case that raises is a failure, reported with its error)
            results.append((name, False, f"{type(e).__name__}: {e}", time.time() - t0))
    return results


def errors_case():
    """Wrong arguments: each error names the problem, and nothing runs."""
    import cupy as cp
    import cooplink.numba as coop
    x, off, out = cp.zeros(10, cp.float32), cp.array([0, 5, 10], cp.int32), cp.zeros(2, cp.float32)
    tries = [((np.zeros(10, np.float32), off, out, "sum"), "values must be a GPU array"),
             ((x, off.astype(cp.int64), out, "sum"), "offsets must be int32, got int64"),
             ((x, off, out.astype(cp.float64), "sum"), "out has dtype float64, values float32"),
             ((x, off[:2], out, "sum"), "offsets must have len(out) + 1 = 3 entries, got 2"),
             ((x, off, out, "mean"), "op='mean' is not one of sum, min, max, prod"),
             ((x.reshape(2, 5), off, out, "sum"), "values must be 1-D, got shape (2, 5)"),
             ((x[::2], off, out[:2], "sum"), "values must be contiguous"),
             ((x.astype(cp.complex64), off, out.astype(cp.complex64), "sum"), "values of dtype complex64")]
    bad = []
    for args, want in tries:
        try:
            coop.segmented_reduce(*args)
            bad.append(f"no error for {want!r}")
        except (TypeError, ValueError) as e:
            if want not in str(e):
                bad.append(f"{e} (wanted {want!r})")
    return [("errors", not bad, "; ".join(bad), 0.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=min(len(DTYPES) * len(OPS), os.cpu_count() or 1))
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    t0 = time.time()
    ctx = multiprocessing.get_context("spawn")
    results = []

    def report(rs):
        for name, ok, note, secs in rs:
            print(f"{'ok  ' if ok else 'FAIL'} {name:28} {secs:6.1f} s  {note}", flush=True)
        results.extend(rs)
    with ctx.Pool(a.jobs) as pool:
        units = [(d, op, a.filter) for d in DTYPES for op in OPS
                 if not a.filter or any(re.search(a.filter, f"{d} {op} {m}") for m in MIXES)]
        for rs in pool.imap_unordered(run_unit, units):
            report(rs)
    if not a.filter or re.search(a.filter, "errors"):
        report(errors_case())
    failed = [r for r in results if not r[1]]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed ({time.time() - t0:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
