"""The warp cases of the cooplink.numba GPU suite (python_suite.py): every type, logical warps of 1 to 32
lanes (shuffles and CUB's shared-memory version), both call forms, on a block whose last hardware warp
is partial; each thread gives one value to a reduce, a partial reduce (random valid lanes per logical
warp), an exclusive max scan with an initial value and the aggregate, an exclusive sum, an inclusive sum
and an inclusive scan. Lanes after the last whole logical warp of a hardware warp do not call, and their
outputs must stay poisoned."""

import numpy as np
import numba
from numba import cuda
from numba.cuda import types

import cooplink.numba as coop

LANES = [1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32]


def last(a, b):
    """A Python operator, associative and not commutative: an inclusive scan with it returns each input."""
    return b
BLOCKS = 3
OPS = ["sum", "min", "max"]


class WarpCase:
    def __init__(self, index, tname, form, nbtype, storage, to_storage, from_storage):
        self.tname, self.form = tname, form
        self.lanes = LANES[index % len(LANES)]
        self.op = OPS[index % 3]
        self.iop = OPS[(index + 1) % 3]
        self.nbtype, self.storage, self.to_storage, self.from_storage = nbtype, storage, to_storage, from_storage
        L = self.lanes
        self.per_hw = 32 // L
        j = 1 + index % self.per_hw           # whole logical warps in the partial last hardware warp
        self.threads = 32 + j * L
        self.n_warps = self.per_hw + j
        self.name = f"warp {form:7} {tname:8} lanes={L:2} threads={self.threads} reduce={self.op} scan={self.iop}"

    def primitives(self):
        T, L = self.nbtype(self.tname), self.lanes
        return [coop.warp.make_reduce(T, self.op, L), coop.warp.make_exclusive_scan(T, "max", L, initial_value=1),
                coop.warp.make_exclusive_sum(T, L), coop.warp.make_inclusive_sum(T, L),
                coop.warp.make_inclusive_scan(T, self.iop, L), coop.warp.make_inclusive_scan(T, last, L)]

    def kernel(self):
        T, L, per_hw, nw = self.nbtype(self.tname), self.lanes, self.per_hw, self.n_warps
        F = types.float64
        S = numba.from_dtype(self.value_storage())
        if self.form == "factory":
            red, exs, exsum, insum, inscan, inlast = self.primitives()

            def k(d_in, d_ex, d_exs, d_ins, d_inc, d_w, valid):
                tid = cuda.threadIdx.x
                lw = (tid % 32) // L
                lane = (tid % 32) % L             # the lane in its logical warp
                if lw < per_hw:
                    b = cuda.blockIdx.x
                    w = (tid // 32) * per_hw + lw
                    g = b * nw + w
                    at = b * cuda.blockDim.x + tid
                    x = d_in[at]
                    agg = coop.local.array(1, T)
                    r = red(x)
                    p = red(x, valid[g])
                    d_ex[at] = S(exs(x, aggregate=agg))
                    d_exs[at] = S(exsum(x))
                    d_ins[at] = S(insum(x))
                    d_inc[at] = S(inscan(x))
                    d_w[g, 2 + lane] = F(numba.float32(agg[0]))
                    d_w[g, 2 + L + lane] = F(numba.float32(inlast(x)))
                    if lane == 0:
                        d_w[g, 0] = F(numba.float32(r))
                        d_w[g, 1] = F(numba.float32(p))
        else:
            op, iop = self.op, self.iop

            def k(d_in, d_ex, d_exs, d_ins, d_inc, d_w, valid):
                tid = cuda.threadIdx.x
                lw = (tid % 32) // L
                lane = (tid % 32) % L             # the lane in its logical warp
                if lw < per_hw:
                    b = cuda.blockIdx.x
                    w = (tid // 32) * per_hw + lw
                    g = b * nw + w
                    at = b * cuda.blockDim.x + tid
                    x = d_in[at]
                    agg = coop.local.array(1, T)
                    r = coop.warp.reduce(x, op=op, threads_in_warp=L)
                    p = coop.warp.reduce(x, valid[g], op=op, threads_in_warp=L)
                    d_ex[at] = coop.warp.exclusive_scan(x, T(1), op="max", threads_in_warp=L, aggregate=agg)
                    d_exs[at] = coop.warp.exclusive_sum(x, threads_in_warp=L)
                    d_ins[at] = coop.warp.inclusive_sum(x, threads_in_warp=L)
                    d_inc[at] = coop.warp.inclusive_scan(x, op=iop, threads_in_warp=L)
                    d_w[g, 2 + lane] = F(numba.float32(agg[0]))
                    if lane == 0:
                        d_w[g, 0] = F(numba.float32(r))
                        d_w[g, 1] = F(numba.float32(p))
        return k

    def signature(self):
        S = numba.from_dtype(self.value_storage())
        return (S[::1],) * 5 + (types.float64[:, ::1], types.int32[::1])

    def value_storage(self):
        # bfloat16 values travel as float32 (the calls convert them); the outputs likewise
        return np.dtype(np.float32) if self.tname == "bfloat16" else self.storage(self.tname)

    # ---- host side
    def run(self, rng, poison):
        n = BLOCKS * self.threads
        if self.tname.startswith(("float", "bfloat")):
            x = rng.integers(-3, 4, n).astype(np.float64)
        elif self.tname.startswith("u"):
            x = rng.integers(0, 7, n)
        else:
            x = rng.integers(-5, 6, n)
        d_in = x.astype(self.value_storage())
        valid = rng.integers(1, self.lanes + 1, BLOCKS * self.n_warps).astype(np.int32)
        valid[0] = self.lanes
        outs = [poison(self.value_storage(), n) for _ in range(4)]
        wout = np.full((BLOCKS * self.n_warps, 2 + 2 * self.lanes), np.nan)
        dd = [cuda.to_device(a) for a in [d_in] + outs + [wout, valid]]
        cuda.jit(self.kernel())[BLOCKS, self.threads](*dd)
        got = [d.copy_to_host() for d in dd[1:6]]
        return self.check(d_in, valid, outs[0][0], *got)

    def check(self, d_in, valid, poison_value, ex, exs, ins, inc, w):
        L, per_hw = self.lanes, self.per_hw
        exact = not self.tname.startswith(("float", "bfloat"))
        work = np.dtype(self.tname) if exact else np.float64
        why = []

        def close(got, want, what):
            got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
            if not (np.array_equal(got, want) if exact else np.allclose(got, want, rtol=1e-2, atol=1e-2)):
                why.append(f"{what}: got {got[:8]} want {want[:8]}")

        red = {"sum": np.add, "min": np.minimum, "max": np.maximum}
        for b in range(BLOCKS):
            for tid in range(self.threads):
                if (tid % 32) // L >= per_hw:
                    at = b * self.threads + tid
                    for arr, what in ((ex, "exclusive scan"), (exs, "exclusive sum"), (ins, "inclusive sum"),
                                      (inc, "inclusive scan")):
                        v = arr[at]
                        if not (v == poison_value or (np.isnan(v) and np.isnan(poison_value))):
                            why.append(f"block {b} thread {tid} is in no whole logical warp of {L}, but its "
                                       f"{what} output was written")
            for wi in range(self.n_warps):
                g = b * self.n_warps + wi
                first = b * self.threads + (wi // per_hw) * 32 + (wi % per_hw) * L
                seq = d_in[first:first + L].astype(work)
                with np.errstate(over="ignore"):
                    close(w[g, 0], red[self.op].reduce(seq, dtype=work), f"block {b} warp {wi} reduce")
                    close(w[g, 1], red[self.op].reduce(seq[:valid[g]], dtype=work),
                          f"block {b} warp {wi} partial reduce (valid {valid[g]})")
                    want_ex = np.maximum.accumulate(np.concatenate([[1], seq[:-1]]).astype(work))
                    close(ex[first:first + L], want_ex, f"block {b} warp {wi} exclusive max scan")
                    close(w[g, 2:2 + L], np.full(L, seq.max()), f"block {b} warp {wi} scan aggregate")
                    close(exs[first:first + L], np.concatenate([[0], np.cumsum(seq[:-1], dtype=work)]),
                          f"block {b} warp {wi} exclusive sum")
                    close(ins[first:first + L], np.cumsum(seq, dtype=work), f"block {b} warp {wi} inclusive sum")
                    close(inc[first:first + L], red[self.iop].accumulate(seq, dtype=work),
                          f"block {b} warp {wi} inclusive {self.iop} scan")
                    if self.form == "factory":
                        close(w[g, 2 + L:2 + 2 * L], seq, f"block {b} warp {wi} inclusive scan with a Python operator")
        return not why, why[:6]
