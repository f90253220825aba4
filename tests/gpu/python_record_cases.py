"""Record dtypes (user types) in cooplink.numba on the GPU: a 2x2 matrix of uint32 with the matrix product
modulo 2^32 as a Python operator (exact, associative, not commutative: the results show the operand order),
through block load (algorithms that give the blocked arrangement, so that the scan order is the memory
order), reduce (raking, warp_reductions), exclusive scan with an initial matrix, inclusive scan and store,
and warp reduce, inclusive scan and exclusive scan on logical warps of 1 to 32 lanes (a partial last
hardware warp included); both call forms for the warp reduce. Checked exactly against Python integers;
outputs poisoned first. Included by python_suite.py."""

import numpy as np
import numba
from numba import cuda

import cooplink.numba as coop

MAT = np.dtype([("a", np.uint32), ("b", np.uint32), ("c", np.uint32), ("d", np.uint32)], align=True)
R = numba.from_dtype(MAT)
ITEMS = 2
BLOCKS = 3
MASK = 0xFFFFFFFF
IDENTITY = (1, 0, 0, 1)


def matmul(x, y, o):
    """o = x @ y, modulo 2^32 (uint32 fields)."""
    a = x.a * y.a + x.b * y.c
    b = x.a * y.b + x.b * y.d
    c = x.c * y.a + x.d * y.c
    o.d = x.c * y.b + x.d * y.d
    o.a = a
    o.b = b
    o.c = c


matmul_device = cuda.jit(device=True)(matmul)  # what a call with no factory takes as its op


def host_mul(x, y):
    a, b, c, d = x
    e, f, g, h = y
    return ((a * e + b * g) & MASK, (a * f + b * h) & MASK, (c * e + d * g) & MASK, (c * f + d * h) & MASK)


def as_tuples(arr):
    return [tuple(int(v) for v in r) for r in arr.tolist()]


def poisoned(n):
    a = np.empty(n, MAT)
    for f in "abcd":
        a[f] = 0xA5A5A5A5
    return a


class RecordBlockCase:
    def __init__(self, shape, load, reduce, scan):
        self.shape, self.load, self.reduce, self.scan = shape, load, reduce, scan
        self.form = "factory"
        self.name = f"record  mat2x2u32 {'x'.join(map(str, shape)):7} load={load} reduce={reduce} scan={scan}"

    def primitives(self):
        s = self.shape
        return [coop.block.make_load(MAT, s, ITEMS, self.load), coop.block.make_reduce(MAT, s, matmul, ITEMS, self.reduce),
                coop.block.make_exclusive_scan(MAT, s, matmul, ITEMS, initial_value=IDENTITY, algorithm=self.scan),
                coop.block.make_inclusive_scan(MAT, s, matmul, ITEMS, algorithm=self.scan),
                coop.block.make_store(MAT, s, ITEMS, "direct")]

    def kernel(self):
        ld, red, exs, ins, st = self.primitives()
        n = self.shape[0] * self.shape[1] * self.shape[2]
        tile = n * ITEMS

        def k(d_in, d_agg, d_ex, d_inc):
            items = coop.local.array(ITEMS, R)
            out = coop.local.array(ITEMS, R)
            base = cuda.blockIdx.x * tile
            ld(d_in[base:], items)
            agg = red(items)
            tid = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
            if tid == 0:
                d_agg[cuda.blockIdx.x] = agg
            exs(items, out)
            st(d_ex[base:], out)
            ins(items, out)
            st(d_inc[base:], out)
        return k

    def signature(self):
        return (R[::1],) * 4

    def run(self, rng, poison=None):
        n = self.shape[0] * self.shape[1] * self.shape[2]
        tile = n * ITEMS
        d_in = np.zeros(BLOCKS * tile, MAT)
        for f in "abcd":
            d_in[f] = rng.integers(0, 2 ** 32, BLOCKS * tile, dtype=np.uint64).astype(np.uint32)
        outs = [poisoned(BLOCKS), poisoned(BLOCKS * tile), poisoned(BLOCKS * tile)]
        dd = [cuda.to_device(a) for a in [d_in] + outs]
        cuda.jit(self.kernel())[BLOCKS, self.shape](*dd)
        agg, ex, inc = (as_tuples(d.copy_to_host()) for d in dd[1:])
        x = as_tuples(d_in)
        why = []
        for b in range(BLOCKS):
            run, acc = IDENTITY, None
            for j in range(tile):
                v = x[b * tile + j]
                if ex[b * tile + j] != run:
                    why.append(f"block {b} element {j}: exclusive scan {ex[b * tile + j]}, want {run}")
                run = host_mul(run, v)
                acc = v if acc is None else host_mul(acc, v)
                if inc[b * tile + j] != acc:
                    why.append(f"block {b} element {j}: inclusive scan {inc[b * tile + j]}, want {acc}")
            if agg[b] != acc:
                why.append(f"block {b}: reduce {agg[b]}, want {acc}")
        return not why, why[:6]


class RecordWarpCase:
    def __init__(self, lanes, j, form):
        self.lanes, self.form = lanes, form
        self.per_hw = 32 // lanes
        self.threads = 32 + j * lanes  # a partial last hardware warp of j whole logical warps
        self.n_warps = self.per_hw + j
        self.name = f"record  {form:7} mat2x2u32 lanes={lanes:2} threads={self.threads}"

    def primitives(self):
        L = self.lanes
        return [coop.warp.make_reduce(MAT, matmul, L), coop.warp.make_inclusive_scan(MAT, matmul, L),
                coop.warp.make_exclusive_scan(MAT, matmul, L, initial_value=IDENTITY)]

    def kernel(self):
        L, per_hw, nw = self.lanes, self.per_hw, self.n_warps
        red, ins, exs = self.primitives()
        single = self.form == "single"

        def k(d_in, d_red, d_inc, d_ex):
            tid = cuda.threadIdx.x
            lw = (tid % 32) // L
            if lw < per_hw:
                at = cuda.blockIdx.x * cuda.blockDim.x + tid
                x = d_in[at]
                if single:
                    r = coop.warp.reduce(x, op=matmul_device, threads_in_warp=L)
                else:
                    r = red(x)
                d_inc[at] = ins(x)
                d_ex[at] = exs(x)
                if (tid % 32) % L == 0:
                    d_red[cuda.blockIdx.x * nw + (tid // 32) * per_hw + lw] = r
        return k

    def signature(self):
        return (R[::1],) * 4

    def run(self, rng, poison=None):
        n = BLOCKS * self.threads
        d_in = np.zeros(n, MAT)
        for f in "abcd":
            d_in[f] = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
        outs = [poisoned(BLOCKS * self.n_warps), poisoned(n), poisoned(n)]
        dd = [cuda.to_device(a) for a in [d_in] + outs]
        cuda.jit(self.kernel())[BLOCKS, self.threads](*dd)
        red, inc, ex = (as_tuples(d.copy_to_host()) for d in dd[1:])
        x = as_tuples(d_in)
        L, per_hw = self.lanes, self.per_hw
        why = []
        untouched = tuple(int(v) for v in poisoned(1)[0].tolist())
        for b in range(BLOCKS):
            for tid in range(self.threads):
                if (tid % 32) // L >= per_hw and (inc[b * self.threads + tid] != untouched or
                                                   ex[b * self.threads + tid] != untouched):
                    why.append(f"block {b} thread {tid} is in no whole logical warp of {L}, but was written")
            for wi in range(self.n_warps):
                first = b * self.threads + (wi // per_hw) * 32 + (wi % per_hw) * L
                run, acc = IDENTITY, None
                for i in range(L):
                    v = x[first + i]
                    if ex[first + i] != run:
                        why.append(f"block {b} warp {wi} lane {i}: exclusive scan {ex[first + i]}, want {run}")
                    run = host_mul(run, v)
                    acc = v if acc is None else host_mul(acc, v)
                    if inc[first + i] != acc:
                        why.append(f"block {b} warp {wi} lane {i}: inclusive scan {inc[first + i]}, want {acc}")
                if red[b * self.n_warps + wi] != acc:
                    why.append(f"block {b} warp {wi}: reduce {red[b * self.n_warps + wi]}, want {acc}")
        return not why, why[:6]


def record_cases():
    out = []
    blocks = [((64, 1, 1), "warp_transpose", "raking", "warp_scans"), ((16, 4, 1), "direct", "warp_reductions", "raking"),
              ((96, 1, 1), "transpose", "raking", "raking_memoize"), ((7, 1, 1), "vectorize", "warp_reductions", "raking")]
    for shape, load, reduce, scan in blocks:
        out.append(RecordBlockCase(shape, load, reduce, scan))
    for i, lanes in enumerate([1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32]):
        out.append(RecordWarpCase(lanes, 1 + i % (32 // lanes), "factory" if i % 2 == 0 else "single"))
    return out
