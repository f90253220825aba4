"""The GPU suite of cooplink.numba: every block primitive and variant in both call forms (factories and calls
with no factory), every type (f16 and bf16 included), block shapes 7, 65, 128, 16x16, 8x4x2, random
partial tiles, poisoned outputs, checked against numpy; the warp primitives (python_warp_cases.py); and a
record dtype with a Python operator through block and warp primitives (python_record_cases.py); warp
load, store and exchange (python_warp_data_cases.py); block exchange and merge sort (python_block2_cases.py).
Ends with `N passed, M failed`.

    python tests/gpu/python_suite.py --symbols FILE     # no GPU: the symbols the cases call (for coopgen)
    python tests/gpu/python_suite.py --compile-only     # no GPU: compile and link every kernel for sm_90
    python tests/gpu/python_suite.py                    # on a GPU: run and check every case
"""

import argparse
import itertools
import sys
import time

import numpy as np
import numba
from numba import cuda
from numba.cuda import types

import cooplink.numba as coop
from python_block2_cases import block2_cases
from python_record_cases import record_cases
from python_warp_data_cases import warp_data_cases, warp_sort_cases
from python_warp_cases import WarpCase

numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0

TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
         "float32", "float64"]
SHAPES = [(7, 1, 1), (65, 1, 1), (128, 1, 1), (16, 16, 1), (8, 4, 2)]
ITEMS = 3
TILES = 3
LOADS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]
REDUCES = ["raking", "raking_commutative_only", "warp_reductions"]
SCANS = ["raking", "raking_memoize", "warp_scans"]
ROPS = ["sum", "min", "max"]


def nbtype(name):
    return types.bfloat16 if name == "bfloat16" else numba.from_dtype(np.dtype(name))


def storage(name):
    """The numpy dtype of a tile in memory (bfloat16 as its bits)."""
    return np.dtype(np.uint16) if name == "bfloat16" else np.dtype(name)


def to_bf16_bits(x):
    b = np.asarray(x, np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def from_storage(name, a):
    if name == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


class Case:
    def __init__(self, index, tname, shape, form):
        self.tname, self.shape, self.form = tname, shape, form
        n = shape[0] * shape[1] * shape[2]
        warp_ok = n % 32 == 0
        loads = LOADS if warp_ok else LOADS[:4]
        self.load = loads[index % len(loads)]
        self.store = loads[(index + 1) % len(loads)]
        self.reduce = REDUCES[index % 3]
        self.scan = SCANS[index % 3]
        self.rop = ROPS[index % 3]
        self.name = f"{form:7} {tname:8} {'x'.join(map(str, shape)):7} load={self.load} reduce={self.rop}/" \
                    f"{self.reduce} scan={self.scan} store={self.store}"

    def kernel(self):
        T = nbtype(self.tname)
        shape, n_threads = self.shape, self.shape[0] * self.shape[1] * self.shape[2]
        tile = n_threads * ITEMS
        F = types.float64
        if self.form == "factory":
            ld = coop.block.make_load(T, shape, ITEMS, self.load)
            st = coop.block.make_store(T, shape, ITEMS, self.store)
            red = coop.block.make_reduce(T, shape, self.rop, ITEMS, self.reduce)
            part = coop.block.make_reduce(T, shape, self.rop, 1, self.reduce)
            exs = coop.block.make_exclusive_scan(T, shape, "max", ITEMS, algorithm=self.scan)
            ins = coop.block.make_inclusive_sum(T, shape, ITEMS, algorithm=self.scan)
            exsum = coop.block.make_exclusive_sum(T, shape, ITEMS, algorithm=self.scan)
            incmax = coop.block.make_inclusive_scan(T, shape, "max", ITEMS, algorithm=self.scan)
            tb = max(exs.temp_storage_bytes, 1)
            ta = exs.temp_storage_alignment

            def k(d_in, d_scan, d_sum, d_ex, d_inc, d_sc, valid):
                tid = cuda.threadIdx.x + cuda.threadIdx.y * shape[0] + cuda.threadIdx.z * shape[0] * shape[1]
                b = cuda.blockIdx.x
                base = b * tile
                nv = valid[b]
                temp = coop.shared.array(tb, numba.uint8, alignment=ta)
                items = coop.local.array(ITEMS, T)
                out = coop.local.array(ITEMS, T)
                agg = coop.local.array(1, T)
                run = coop.local.array(1, T)
                ld(d_in[base:], items, nv, 0)
                r = red(items)
                p = part(items[0], nv // ITEMS)
                exs(temp, items, out, 1, block_aggregate=agg)
                cuda.syncthreads()
                st(d_scan[base:], out, nv)
                run[0] = 2
                ins(items, out, running=run)
                st(d_sum[base:], out)
                # plain load of the whole tile, exclusive sum seeded by a running prefix, inclusive max
                ld(d_in[base:], items)
                run2 = coop.local.array(1, T)
                run2[0] = 5
                exsum(items, out, running=run2)
                st(d_ex[base:], out)
                incmax(items, out)
                st(d_inc[base:], out)
                d_sc[b, 3 + n_threads + tid] = F(numba.float32(run2[0]))
                if tid == 0:
                    d_sc[b, 0] = F(numba.float32(r))
                    d_sc[b, 1] = F(numba.float32(p))
                    d_sc[b, 2] = F(numba.float32(agg[0]))
                d_sc[b, 3 + tid] = F(numba.float32(run[0]))
        else:
            lalgo, salgo, ralgo, calgo, rop = self.load, self.store, self.reduce, self.scan, self.rop

            def k(d_in, d_scan, d_sum, d_ex, d_inc, d_sc, valid):
                tid = cuda.threadIdx.x + cuda.threadIdx.y * shape[0] + cuda.threadIdx.z * shape[0] * shape[1]
                b = cuda.blockIdx.x
                base = b * tile
                nv = valid[b]
                items = coop.local.array(ITEMS, T)
                out = coop.local.array(ITEMS, T)
                agg = coop.local.array(1, T)
                run = coop.local.array(1, T)
                coop.block.load(d_in[base:], items, nv, 0, algorithm=lalgo)
                r = coop.block.reduce(items, op=rop, algorithm=ralgo)
                p = coop.block.reduce(items[0], nv // ITEMS, op=rop, algorithm=ralgo)
                coop.block.exclusive_scan(items, out, 1, op="max", algorithm=calgo, aggregate=agg)
                coop.block.store(d_scan[base:], out, nv, algorithm=salgo)
                run[0] = 2
                coop.block.inclusive_sum(items, out, algorithm=calgo, running=run)
                coop.block.store(d_sum[base:], out, algorithm=salgo)
                coop.block.load(d_in[base:], items, algorithm=lalgo)
                run2 = coop.local.array(1, T)
                run2[0] = 5
                coop.block.exclusive_sum(items, out, running=run2, algorithm=calgo)
                coop.block.store(d_ex[base:], out, algorithm=salgo)
                coop.block.inclusive_scan(items, out, op="max", algorithm=calgo)
                coop.block.store(d_inc[base:], out, algorithm=salgo)
                d_sc[b, 3 + n_threads + tid] = F(numba.float32(run2[0]))
                if tid == 0:
                    d_sc[b, 0] = F(numba.float32(r))
                    d_sc[b, 1] = F(numba.float32(p))
                    d_sc[b, 2] = F(numba.float32(agg[0]))
                d_sc[b, 3 + tid] = F(numba.float32(run[0]))
        return k

    def signature(self):
        S = numba.from_dtype(storage(self.tname))
        return (S[::1], S[::1], S[::1], S[::1], S[::1], types.float64[:, ::1], types.int32[::1])

    # ---- host side
    def inputs(self, rng):
        n = self.shape[0] * self.shape[1] * self.shape[2]
        tile = n * ITEMS
        if self.tname == "bfloat16":
            # sums stay below 256, where bfloat16 holds every integer (its scans are then exact)
            x = (rng.random(TILES * tile) < 0.2).astype(np.float32)
        elif self.tname == "float16":
            x = rng.integers(0, 2, TILES * tile).astype(np.float32)
        elif self.tname.startswith("float"):
            x = rng.integers(-20, 20, TILES * tile).astype(np.float64)
        elif self.tname.startswith("u"):
            x = rng.integers(0, 60, TILES * tile)
        else:
            x = rng.integers(-30, 30, TILES * tile)
        valid = np.array([tile, int(rng.integers(1, tile)), int(rng.integers(0, tile // 2))], np.int32)
        if self.tname == "bfloat16":
            d = to_bf16_bits(x)
        else:
            d = x.astype(storage(self.tname))
        return d, valid

    def check(self, d_in, valid, scan, ssum, sex, sinc, sc):
        n = self.shape[0] * self.shape[1] * self.shape[2]
        tile = n * ITEMS
        ok, why = True, []
        vals = from_storage(self.tname, d_in).astype(np.float64) if self.tname in ("float16", "bfloat16") else d_in
        exact = not self.tname.startswith(("float", "bfloat"))
        work = np.dtype(self.tname) if exact else np.float64
        tol = {"float16": 4e-3, "bfloat16": 2e-2}.get(self.tname, 1e-9)

        def close(got, want, what):
            nonlocal ok
            got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
            if exact:
                good = np.array_equal(got, want)
            else:
                good = np.allclose(got, want, rtol=tol, atol=tol)
            if not good:
                ok = False
                bad = np.flatnonzero(~np.isclose(got, want, rtol=tol, atol=tol)) if got.shape == want.shape else []
                why.append(f"{what}: first mismatch at {bad[:3]} got {got.ravel()[bad[:3]]} want "
                           f"{want.ravel()[bad[:3]]}")

        red = {"sum": np.sum, "min": np.min, "max": np.max}[self.rop]
        # the order the primitives see: thread t's item i is the tile's t*ITEMS+i (blocked algorithms)
        # or i*n+t (striped); stores put it back by their own arrangement
        seq_of = np.arange(tile).reshape(n, ITEMS)
        striped = np.arange(tile).reshape(ITEMS, n).T
        perm_load = (striped if self.load == "striped" else seq_of).ravel()
        perm_store = (striped if self.store == "striped" else seq_of).ravel()
        for b in range(TILES):
            t = vals[b * tile:(b + 1) * tile].astype(work)
            nv = int(valid[b])
            mem = t.copy()
            mem[nv:] = 0  # the oob default
            seq = mem[perm_load]
            with np.errstate(over="ignore"):
                r = red(seq.astype(work), dtype=work) if self.rop == "sum" else red(seq)
                # partial: thread i's first item, threads < nv // ITEMS
                firsts = seq.reshape(n, ITEMS)[:, 0][:nv // ITEMS]
                p = None
                if len(firsts):
                    p = red(firsts.astype(work), dtype=work) if self.rop == "sum" else red(firsts)
                ex = np.maximum(np.maximum.accumulate(np.concatenate([[1], seq[:-1]]).astype(work)), 1)
                agg = np.max(seq)
                inc = np.cumsum(seq.astype(work), dtype=work) + work.type(2) if exact else np.cumsum(seq) + 2
                run = (np.sum(seq.astype(work), dtype=work) + work.type(2)) if exact else np.sum(seq) + 2
            ex_mem = np.empty_like(ex)
            ex_mem[perm_store] = ex
            inc_mem = np.empty_like(inc)
            inc_mem[perm_store] = inc
            close(sc[b, 0], r, f"tile {b} reduce")
            if p is not None:
                close(sc[b, 1], p, f"tile {b} partial reduce")
            close(sc[b, 2], agg, f"tile {b} scan aggregate")
            close(sc[b, 3:3 + n], np.full(n, run), f"tile {b} running prefix")
            gs = scan[b * tile:(b + 1) * tile]
            gs = from_storage(self.tname, gs) if self.tname == "bfloat16" else gs
            close(gs[:nv], ex_mem[:nv], f"tile {b} exclusive max scan (guarded store)")
            if nv < tile and self.tname != "bfloat16":
                tail = scan[b * tile + nv:(b + 1) * tile]
                if not np.all((tail == POISON[self.tname]) | (np.isnan(tail) if tail.dtype.kind == "f" else False)):
                    ok = False
                    why.append(f"tile {b}: the guarded store wrote past valid={nv}")
            gi = ssum[b * tile:(b + 1) * tile]
            gi = from_storage(self.tname, gi) if self.tname == "bfloat16" else gi
            close(gi, inc_mem, f"tile {b} inclusive sum with running prefix")
            full = t[perm_load]
            with np.errstate(over="ignore"):
                ex2 = (np.concatenate([[0], np.cumsum(full[:-1].astype(work), dtype=work)]).astype(work)
                       + work.type(5)) if exact else np.concatenate([[0], np.cumsum(full[:-1])]) + 5
                run2 = (np.sum(full.astype(work), dtype=work) + work.type(5)) if exact else np.sum(full) + 5
                inc2 = np.maximum.accumulate(full)
            for got, want, what in ((sex, ex2, "exclusive sum seeded by a running prefix"),
                                    (sinc, inc2, "inclusive max scan")):
                g = got[b * tile:(b + 1) * tile]
                g = from_storage(self.tname, g) if self.tname == "bfloat16" else g
                w = np.empty_like(want)
                w[perm_store] = want
                close(g, w, f"tile {b} {what} (plain load and store)")
            close(sc[b, 3 + n:3 + 2 * n], np.full(n, run2), f"tile {b} running prefix after the exclusive sum")
        return ok, why


POISON = {}


def poison(name, size):
    s = storage(name)
    if s.kind == "f":
        v = np.array(np.nan, s)
    else:
        v = np.array(np.iinfo(s).max - 3, s)
    POISON[name] = v
    return np.full(size, v, s)


def cases():
    out = []
    for i, (tname, shape, form) in enumerate(itertools.product(TYPES, SHAPES, ("factory", "single"))):
        out.append(Case(i, tname, shape, form))
    # warp cases; a call with no factory takes its dtype from the value, and numba has no bfloat16 values
    # to read from memory, so bfloat16 is covered by the factories
    for i, (tname, form, _) in enumerate(itertools.product(TYPES, ("factory", "single"), range(2))):
        if not (tname == "bfloat16" and form == "single"):
            out.append(WarpCase(i * 5 + (i // 4), tname, form, nbtype, storage, to_bf16_bits, from_storage))
    return out + record_cases() + warp_data_cases() + warp_sort_cases() + block2_cases()


def poison_of(dtype, size):
    v = np.array(np.nan if dtype.kind == "f" else np.iinfo(dtype).max - 3, dtype)
    return np.full(size, v, dtype)


def launch_checks():
    """What needs a launch: a factory made for 128 threads launched with 64 fails while typing, naming both;
    a call with no factory takes the shape of each launch (64, then 128) and computes each correctly."""
    results = []
    red = coop.block.make_sum(np.int32, 128, 1)

    @cuda.jit
    def k(d_in, d_out):
        r = red(d_in[cuda.threadIdx.x])
        if cuda.threadIdx.x == 0:
            d_out[0] = r
    d_in, d_out = cuda.to_device(np.arange(128, dtype=np.int32)), cuda.to_device(np.full(1, -1, np.int32))
    try:
        k[1, 64](d_in, d_out)
        results.append((False, "a 64-thread launch of a 128-thread primitive was accepted"))
    except numba.core.errors.TypingError as e:
        want = ("block_reduce_sum_i32_t128_i1_warp_reductions: made for threads_per_block=(128, 1, 1), but the "
                "kernel is launched with blockdim=(64, 1, 1)")
        results.append((want in str(e), f"launch mismatch message: {str(e)[:300]}"))

    @cuda.jit
    def s(d_in, d_out):
        r = coop.block.sum(d_in[cuda.threadIdx.x])
        if cuda.threadIdx.x == 0:
            d_out[0] = r
    for n in (64, 128):
        d_out = cuda.to_device(np.full(1, -1, np.int32))
        s[1, n](d_in, d_out)
        got = int(d_out.copy_to_host()[0])
        results.append((got == n * (n - 1) // 2, f"single-phase sum over a {n}-thread launch: {got}"))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symbols", metavar="FILE")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--filter", default="")
    ap.add_argument("--jobs", type=int, default=1, help="processes that compile and run cases in parallel")
    ap.add_argument("--shard", default="0/1")
    args = ap.parse_args()
    k_shard, n_shard = map(int, args.shard.split("/"))
    all_cases = [c for i, c in enumerate(cases()) if args.filter in c.name and i % n_shard == k_shard]
    if args.jobs > 1 and not (args.symbols or args.compile_only):
        import subprocess
        t0 = time.time()
        procs = [subprocess.Popen([sys.executable, __file__, "--filter", args.filter, "--shard", f"{j}/{args.jobs}"],
                                  stdout=subprocess.PIPE, text=True) for j in range(args.jobs)]
        passed = failed = 0
        for p in procs:
            out, _ = p.communicate()
            for line in out.splitlines():
                if line.endswith(" failed") and " passed, " in line:
                    a, b = line.split(" passed, ")
                    passed += int(a)
                    failed += int(b.split()[0])
                elif not line.startswith("python suite:"):
                    print(line)
        print(f"python suite: {passed + failed} cases in {time.time() - t0:.0f} s ({args.jobs} processes)")
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    if args.symbols:
        syms = set()
        for c in all_cases:
            if c.form != "factory":
                continue
            if hasattr(c, "primitives"):  # warp and record cases
                for p in c.primitives():
                    syms.update(p.symbols.values())
                continue
            T = nbtype(c.tname)
            prims = [coop.block.make_exclusive_sum(T, c.shape, ITEMS, algorithm=c.scan),
                     coop.block.make_inclusive_scan(T, c.shape, "max", ITEMS, algorithm=c.scan),
                     coop.block.make_load(T, c.shape, ITEMS, c.load),
                     coop.block.make_store(T, c.shape, ITEMS, c.store),
                     coop.block.make_reduce(T, c.shape, c.rop, ITEMS, c.reduce),
                     coop.block.make_reduce(T, c.shape, c.rop, 1, c.reduce),
                     coop.block.make_exclusive_scan(T, c.shape, "max", ITEMS, algorithm=c.scan),
                     coop.block.make_inclusive_sum(T, c.shape, ITEMS, algorithm=c.scan)]
            for p in prims:
                syms.update(p.symbols.values())
        with open(args.symbols, "w") as f:
            f.write("\n".join(sorted(syms)) + "\n")
        from cooplink.numba import _primitive
        with open(args.symbols + ".types", "w") as f:  # the user types the symbols take: coopgen --user-type
            f.write("".join(f"{n}:{size}:{align}\n" for n, size, align in sorted(_primitive.USER_TYPES.values())))
        print(f"{len(syms)} symbols for {len(all_cases)} cases")
        return 0
    if args.compile_only:
        sys.path.insert(0, "tests/python")
        from conftest import assert_inlined, compile_and_link
        passed = failed = 0
        for c in all_cases:
            if c.form == "single" and not hasattr(c, "run"):
                continue  # its block shape comes from the launch
            try:
                assert_inlined(compile_and_link(c.kernel(), c.signature()))
                passed += 1
            except Exception as e:  # noqa: BLE001
                failed += 1
                print(f"FAIL {c.name}: {e}"[:600])
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    rng = np.random.default_rng(7)
    passed = failed = 0
    t0 = time.time()
    for c in all_cases:
        if hasattr(c, "run"):  # warp and record cases run themselves
            try:
                ok, why = c.run(rng, poison_of)
            except Exception as e:  # noqa: BLE001
                ok, why = False, [f"{type(e).__name__}: {e}"[:800]]
            passed += ok
            failed += not ok
            if not ok:
                print(f"FAIL {c.name}\n  " + "\n  ".join(why))
            continue
        try:
            n = c.shape[0] * c.shape[1] * c.shape[2]
            d_in, valid = c.inputs(rng)
            outs = [poison(c.tname, d_in.size) for _ in range(4)]
            sc = np.full((TILES, 3 + 2 * n), np.nan)
            k = cuda.jit(c.kernel())
            dd = [cuda.to_device(a) for a in [d_in] + outs + [sc, valid]]
            k[TILES, c.shape](*dd)
            got = [d.copy_to_host() for d in dd[1:6]]
            ok, why = c.check(d_in, valid, *got)
        except Exception as e:  # noqa: BLE001
            ok, why = False, [f"{type(e).__name__}: {e}"[:800]]
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {c.name}\n  " + "\n  ".join(why))
    if k_shard == 0 and not args.filter:
        for ok, what in launch_checks():
            passed += ok
            failed += not ok
            if not ok:
                print(f"FAIL {what}")
    print(f"python suite: {len(all_cases)} cases in {time.time() - t0:.0f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
