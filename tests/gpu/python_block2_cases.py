"""Block exchange, merge sort, discontinuity, adjacent difference, shuffle, radix sort, histogram, run-length
decode and radix rank cases of the cooplink.numba GPU suite (python_suite.py): 1-, 2- and
3-D blocks, both call forms. An exchange case runs every BlockExchangeType (time-sliced where CUB has it;
striped to blocked in place, with one array), the scatters by a permutation of the tile (the guarded one
skipping a third of the items by negative ranks, the flagged one another third); a sort case sorts int32 keys
('<') and record keys with u32 values (their places) under a Python comparator with many ties, plain and
guarded. Checked exactly against numpy; outputs poisoned first; places no scatter writes are CUB's
unspecified and not checked."""

import numpy as np
import numba
from numba import cuda
from numba.cuda import types

import cooplink.numba as coop
from python_warp_data_cases import KV, by_half_key, by_half_key_device, check_sorted, sort_inputs

BLOCKS = 2
EXCHANGES = ["striped_to_blocked", "blocked_to_striped", "warp_striped_to_blocked", "blocked_to_warp_striped",
             "scatter_to_blocked", "scatter_to_striped", "scatter_to_striped_guarded", "scatter_to_striped_flagged"]
# where an item comes from and where an output slot reads: blocked 0, striped 1, warp-striped 2, a rank -1
FROM = [1, 0, 2, 0, -1, -1, -1, -1]
TO = [0, 1, 0, 2, 0, 1, 1, 1]


def rank_prime(tile):
    return next(p for p in (3, 5, 7, 11, 13, 17, 19, 23, 29) if tile % p)


def places(how, bt, n):
    """The tile place of each thread's items, [thread, item]: blocked, striped or warp-striped."""
    th, i = np.meshgrid(np.arange(bt), np.arange(n), indexing="ij")
    if how == 0:
        return th * n + i
    if how == 1:
        return i * bt + th
    wt = min(bt, 32)
    return (th // 32) * 32 * n + i * wt + th % 32


class BlockExchangeCase:
    def __init__(self, tname, form, shape, items, time_sliced):
        self.tname, self.form, self.shape, self.items, self.ts = tname, form, shape, items, time_sliced
        self.bt = shape[0] * shape[1] * shape[2]
        self.name = f"bexch   {form:7} {tname:8} block={shape} items={items:2}{' time-sliced' if time_sliced else ''}"

    def primitives(self):
        T, B, N = numba.from_dtype(np.dtype(self.tname)), self.shape, self.items
        # CUB does not time-slice the guarded and flagged scatters: those are made without
        return [coop.block.make_exchange(coop.block.BlockExchangeType(e + 1), T, B, N,
                                         warp_time_slicing=self.ts and e < 6) for e in range(8)]

    def kernel(self):
        T, N, bt = numba.from_dtype(np.dtype(self.tname)), self.items, self.bt
        bx, by = self.shape[0], self.shape[1]
        tile, P, ts = bt * N, rank_prime(bt * N), self.ts
        p = self.primitives()
        e0, e1, e2, e3, e4, e5, e6, e7 = p

        @cuda.jit(device=True, inline="always")
        def ranks(r, rg, f, tid, b):
            """the scatters' ranks (a permutation of the tile), the guarded one's (a third negative), the flags"""
            for i in range(N):
                j = tid * N + i
                r[i] = (j * P + b) % tile
                rg[i] = -1 - j if (j + b) % 3 == 0 else r[i]
                f[i] = 1 if (j + b) % 3 != 1 else 0

        def k(d_in, d_out, pz):
            tid = cuda.threadIdx.x + cuda.threadIdx.y * bx + cuda.threadIdx.z * bx * by
            b = cuda.blockIdx.x
            a = coop.local.array(N, T)
            o = coop.local.array(N, T)
            r = coop.local.array(N, numba.int32)
            rg = coop.local.array(N, numba.int32)
            f = coop.local.array(N, numba.int32)
            ranks(r, rg, f, tid, b)
            base = (b * bt + tid) * N
            for e in range(8):
                for i in range(N):
                    a[i] = d_in[base + i]
                    o[i] = pz[0]
                cuda.syncthreads()
                if e == 0:
                    e0(a)  # in place
                    for i in range(N):
                        o[i] = a[i]
                elif e == 1:
                    e1(a, o)
                elif e == 2:
                    e2(a, o)
                elif e == 3:
                    e3(a, o)
                elif e == 4:
                    e4(a, o, r)
                elif e == 5:
                    e5(a, o, r)
                elif e == 6:
                    e6(a, o, rg)
                else:
                    e7(a, o, r, f)
                for i in range(N):
                    d_out[(e * BLOCKS * bt + b * bt + tid) * N + i] = o[i]

        def k_single(d_in, d_out, pz):
            tid = cuda.threadIdx.x + cuda.threadIdx.y * bx + cuda.threadIdx.z * bx * by
            b = cuda.blockIdx.x
            a = coop.local.array(N, T)
            o = coop.local.array(N, T)
            r = coop.local.array(N, numba.int32)
            rg = coop.local.array(N, numba.int32)
            f = coop.local.array(N, numba.int32)
            ranks(r, rg, f, tid, b)
            base = (b * bt + tid) * N
            for e in range(8):
                for i in range(N):
                    a[i] = d_in[base + i]
                    o[i] = pz[0]
                cuda.syncthreads()
                if e == 0:
                    coop.block.exchange(a, exchange_type="striped_to_blocked", warp_time_slicing=ts, threads=SHAPE)
                    for i in range(N):
                        o[i] = a[i]
                elif e == 1:
                    coop.block.exchange(a, o, exchange_type="blocked_to_striped", warp_time_slicing=ts, threads=SHAPE)
                elif e == 2:
                    coop.block.exchange(a, o, exchange_type="warp_striped_to_blocked", warp_time_slicing=ts,
                                        threads=SHAPE)
                elif e == 3:
                    coop.block.exchange(a, o, exchange_type="blocked_to_warp_striped", warp_time_slicing=ts,
                                        threads=SHAPE)
                elif e == 4:
                    coop.block.exchange(a, o, r, exchange_type="scatter_to_blocked", warp_time_slicing=ts,
                                        threads=SHAPE)
                elif e == 5:
                    coop.block.exchange(a, o, r, exchange_type="scatter_to_striped", warp_time_slicing=ts,
                                        threads=SHAPE)
                elif e == 6:
                    coop.block.exchange(a, o, rg, exchange_type="scatter_to_striped_guarded", threads=SHAPE)
                else:
                    coop.block.exchange(a, o, r, f, exchange_type="scatter_to_striped_flagged", threads=SHAPE)
                for i in range(N):
                    d_out[(e * BLOCKS * bt + b * bt + tid) * N + i] = o[i]
        SHAPE = self.shape
        return k if self.form == "factory" else k_single

    def signature(self):
        S = numba.from_dtype(np.dtype(self.tname))
        return (S[::1], S[::1], S[::1])

    def run(self, rng, poison):
        dt = np.dtype(self.tname)
        n = BLOCKS * self.bt * self.items
        d_in = (rng.integers(-100, 100, n) if dt.kind in "if" else rng.integers(0, 200, n)).astype(dt)
        out = poison(dt, 8 * n)
        dd = [cuda.to_device(x) for x in (d_in, out, out[:1].copy())]
        cuda.jit(self.kernel())[BLOCKS, self.shape](*dd)
        return self.check(d_in, dd[1].copy_to_host())

    def check(self, d_in, out):
        bt, N = self.bt, self.items
        tile, P = bt * N, rank_prime(bt * N)
        why = []
        j = np.arange(tile).reshape(bt, N)  # blocked index of thread th's item i
        for e, name in enumerate(EXCHANGES):
            for b in range(BLOCKS):
                src = np.full(tile, -1)
                keep = np.ones((bt, N), bool)
                if e == 6:
                    keep = (j + b) % 3 != 0
                if e == 7:
                    keep = (j + b) % 3 != 1
                at = places(FROM[e], bt, N) if FROM[e] >= 0 else (j * P + b) % tile
                src[at[keep]] = j[keep]
                want_place = places(TO[e], bt, N)
                got = out[(e * BLOCKS + b) * tile:(e * BLOCKS + b + 1) * tile].reshape(bt, N)
                block_in = d_in[b * tile:(b + 1) * tile]
                m = src[want_place] >= 0  # places no scatter wrote are unspecified (CUB's)
                want = block_in[src[want_place][m]]
                if not np.array_equal(got[m], want):
                    bad = np.argwhere(got != np.where(m, block_in[np.maximum(src[want_place], 0)], got))[0]
                    why.append(f"{name} block {b}: thread {bad[0]} item {bad[1]}: got {got[tuple(bad)]}, want "
                               f"{block_in[src[want_place][tuple(bad)]]}")
        return not why, why[:6]


class BlockSortCase:
    """Keys (int32, '<'), and record keys with u32 values (their places) under a Python comparator with many
    ties, plain and guarded: each block's blocked tile sorted stably."""

    def __init__(self, form, shape, items):
        self.form, self.shape, self.items = form, shape, items
        self.bt = shape[0] * shape[1] * shape[2]
        self.name = f"bsort   {form:7} block={shape} items={items:2}"

    def primitives(self):
        B, N = self.shape, self.items
        return [coop.block.make_merge_sort_keys(np.int32, B, N, "<"),
                coop.block.make_merge_sort_pairs(KV, np.uint32, B, N, by_half_key)]

    def kernel(self):
        B, N, bt = self.shape, self.items, self.bt
        bx, by = B[0], B[1]
        sk, sp = self.primitives()
        R = numba.from_dtype(KV)
        single = self.form == "single"

        def k(d_keys, d_kv, d_gkeys, d_gkv, d_vals, d_gvals, valid):
            tid = cuda.threadIdx.x + cuda.threadIdx.y * bx + cuda.threadIdx.z * bx * by
            b = cuda.blockIdx.x
            t = b * bt + tid
            a = coop.local.array(N, numba.int32)
            x = coop.local.array(N, R)
            v = coop.local.array(N, numba.uint32)
            a2 = coop.local.array(N, numba.int32)
            x2 = coop.local.array(N, R)
            v2 = coop.local.array(N, numba.uint32)
            oob = coop.local.array(1, R)
            oob[0].key = -1000  # last under key // 2 descending
            oob[0].tag = -1
            for i in range(N):
                a[i] = d_keys[t * N + i]
                x[i] = d_kv[t * N + i]
                v[i] = tid * N + i
                a2[i] = a[i]
                x2[i] = x[i]
                v2[i] = v[i]
            if single:
                coop.block.merge_sort(a, compare_op="less", threads=B)
                cuda.syncthreads()
                coop.block.merge_sort(x, v, compare_op=by_half_key_device, threads=B)
            else:
                sk(a)
                cuda.syncthreads()
                sp(x, v)
            cuda.syncthreads()
            sk(a2, valid[b], numba.int32(1 << 30))
            cuda.syncthreads()
            sp(x2, v2, valid[b], oob[0])
            for i in range(N):
                d_keys[t * N + i] = a[i]
                d_kv[t * N + i] = x[i]
                d_vals[t * N + i] = v[i]
                d_gkeys[t * N + i] = a2[i]
                d_gkv[t * N + i] = x2[i]
                d_gvals[t * N + i] = v2[i]
        return k

    def signature(self):
        R = numba.from_dtype(KV)
        return (types.int32[::1], R[::1], types.int32[::1], R[::1], types.uint32[::1], types.uint32[::1],
                types.int32[::1])

    def run(self, rng, poison):
        T = self.bt * self.items
        k0, kv0, valid, dd = sort_inputs(rng, poison, BLOCKS * T, T, BLOCKS)
        cuda.jit(self.kernel())[BLOCKS, self.shape](*dd)
        return check_sorted("block", T, k0, kv0, valid, *[d.copy_to_host() for d in dd[:6]])


def block2_cases():
    shapes = [(64, 1, 1), (8, 4, 2), (96, 1, 1), (7, 1, 1), (16, 8, 1)]
    out = []
    for i, (tname, shape) in enumerate([(t, s) for t in ("int32", "float64", "uint8", "int64", "float16")
                                        for s in shapes]):
        out.append(BlockExchangeCase(tname, ("factory", "single")[i % 2], shape, [1, 3, 4, 8][i % 4], i % 3 == 2))
    for i, shape in enumerate([(64, 1, 1), (16, 8, 1), (8, 4, 2), (128, 1, 1), (2, 1, 1), (1, 1, 1)]):
        out.append(BlockSortCase(("factory", "single")[i % 2], shape, [1, 3, 4, 2, 5, 7][i]))
    for i, (tname, shape) in enumerate([(t, s) for t in ("int32", "float32", "uint16", "int64") for s in
                                        ((64, 1, 1), (7, 3, 1), (4, 4, 2))]):
        out.append(BlockMiscCase(tname, ("factory", "single")[i % 2], shape, [1, 3, 4][i % 3]))
    for i, shape in enumerate([(64, 1, 1), (7, 3, 1), (4, 4, 2), (128, 1, 1)]):
        out.append(BlockHistRldRankCase(("factory", "single")[i % 2], shape, [2, 3, 1, 4][i]))
    return out


class BlockMiscCase:
    """Discontinuity (heads; heads and tails with a predecessor and a successor), adjacent difference (left;
    left over a partial tile; right with a successor), shuffle (up with the suffix, down, rotate, offset) and
    radix sort (keys ascending; key-value pairs descending over a bit range, the values their places) on one
    block shape and type, factory or call form. Inputs 0..7 (runs and ties); checked against numpy."""

    def __init__(self, tname, form, shape, items):
        self.tname, self.form, self.shape, self.items = tname, form, shape, items
        self.bt = shape[0] * shape[1] * shape[2]
        self.name = f"bmisc   {form:7} {tname:8} block={shape} items={items:2}"

    def primitives(self):
        T, B, N = np.dtype(self.tname), self.shape, self.items
        return [coop.block.make_discontinuity(T, B, N), coop.block.make_discontinuity(T, B, N, mode="heads_tails"),
                coop.block.make_adjacent_difference(T, B, N), coop.block.make_adjacent_difference(T, B, N, direction="right"),
                coop.block.make_shuffle(T, B, N, "up"), coop.block.make_shuffle(T, B, N, "down"),
                coop.block.make_shuffle(T, B, 1, "rotate"), coop.block.make_shuffle(T, B, 1, "offset"),
                coop.block.make_radix_sort_keys(T, B, N), coop.block.make_radix_sort_pairs(T, np.uint32, B, N, descending=True)]

    def kernel(self):
        T, N, bt, B = numba.from_dtype(np.dtype(self.tname)), self.items, self.bt, self.shape
        bx, by = B[0], B[1]
        heads, both, left, right, up, down, rot, off, rasc, rdesc = self.primitives()
        bits = np.dtype(self.tname).itemsize * 8
        single = self.form == "single"

        def k(d_in, o_h, o_h2, o_t2, o_l, o_lp, o_r, o_up, o_dn, o_sfx, o_rot, o_off, o_ra, o_rk, o_rv, n):
            tid = cuda.threadIdx.x + cuda.threadIdx.y * bx + cuda.threadIdx.z * bx * by
            b = cuda.blockIdx.x
            base = (b * bt + tid) * N
            a = coop.local.array(N, T)
            y = coop.local.array(N, T)
            h = coop.local.array(N, numba.int32)
            f = coop.local.array(N, numba.int32)
            s = coop.local.array(1, T)
            o = coop.local.array(1, T)
            v = coop.local.array(N, numba.uint32)
            for i in range(N):
                a[i] = d_in[base + i]
            if single:
                coop.block.flag_heads(h, a, threads=B)
            else:
                heads(h, a)
            for i in range(N):
                o_h[base + i] = h[i]
            cuda.syncthreads()
            both(h, f, a, T(5), tile_successor=T(6))
            for i in range(N):
                o_h2[base + i] = h[i]
                o_t2[base + i] = f[i]
            cuda.syncthreads()
            if single:
                coop.block.subtract_left(a, y, threads=B)
            else:
                left(a, y)
            for i in range(N):
                o_l[base + i] = y[i]
            cuda.syncthreads()
            left(a, y, n)
            for i in range(N):
                o_lp[base + i] = y[i]
            cuda.syncthreads()
            right(a, y, tile_successor=T(3))
            for i in range(N):
                o_r[base + i] = y[i]
                y[i] = T(99)
            cuda.syncthreads()
            up(a, y, block_suffix=s)
            for i in range(N):
                o_up[base + i] = y[i]
                y[i] = T(99)
            o_sfx[b * bt + tid] = s[0]
            cuda.syncthreads()
            if single:
                coop.block.shuffle(a, y, mode="down", threads=B)
            else:
                down(a, y)
            for i in range(N):
                o_dn[base + i] = y[i]
            cuda.syncthreads()
            o_rot[b * bt + tid] = rot(a[0], 3)
            cuda.syncthreads()
            o[0] = T(99)
            off(a[0], o, -2)
            o_off[b * bt + tid] = o[0]
            cuda.syncthreads()
            for i in range(N):
                y[i] = a[i]
                v[i] = tid * N + i
            if single:
                coop.block.radix_sort(y, threads=B)
            else:
                rasc(y)
            for i in range(N):
                o_ra[base + i] = y[i]
                y[i] = a[i]
            cuda.syncthreads()
            rdesc(y, v, 1, bits - 1)
            for i in range(N):
                o_rk[base + i] = y[i]
                o_rv[base + i] = v[i]
        return k

    def signature(self):
        S = numba.from_dtype(np.dtype(self.tname))
        I, U = types.int32[::1], types.uint32[::1]
        return (S[::1], I, I, I, S[::1], S[::1], S[::1], S[::1], S[::1], S[::1], S[::1], S[::1], S[::1], S[::1], U,
                types.int32)

    def run(self, rng, poison):
        dt, N, bt = np.dtype(self.tname), self.items, self.bt
        n = 2 * bt * N
        x = rng.integers(0, 8, n).astype(dt)
        nv = int(rng.integers(0, bt * N + 1))
        outs = [np.full(n, -7, np.int32) for _ in range(3)] + [poison(dt, n) for _ in range(5)] + \
            [poison(dt, 2 * bt) for _ in range(3)] + [poison(dt, n), poison(dt, n), np.full(n, 0xA5A5A5A5, np.uint32)]
        dd = [cuda.to_device(a) for a in [x] + outs]
        cuda.jit(self.kernel())[2, self.shape](*dd, np.int32(nv))
        got = [d.copy_to_host() for d in dd[1:]]
        return self.check(x, nv, *got)

    def check(self, x, nv, h, h2, t2, lft, lp, rgt, up, dn, sfx, rot, off, ra, rk, rv):
        dt, N, bt = np.dtype(self.tname), self.items, self.bt
        T = bt * N
        bits = dt.itemsize * 8
        why = []

        def same(got, want, what):
            if not np.array_equal(np.asarray(got), np.asarray(want)):
                why.append(f"{what}: got {np.asarray(got)[:8]} want {np.asarray(want)[:8]}")
        for b in range(2):
            t = x[b * T:(b + 1) * T]
            s = slice(b * T, (b + 1) * T)
            prev = np.concatenate([[t[0]], t[:-1]])
            nxt = np.concatenate([t[1:], [t[-1]]])
            hw = (t != prev).astype(np.int32)
            hw[0] = 1
            same(h[s], hw, f"block {b} heads")
            hw2 = hw.copy()
            hw2[0] = int(t[0] != 5)
            tw2 = (t != nxt).astype(np.int32)
            tw2[-1] = int(t[-1] != 6)
            same(h2[s], hw2, f"block {b} heads (predecessor 5)")
            same(t2[s], tw2, f"block {b} tails (successor 6)")
            with np.errstate(over="ignore"):
                d = (t - prev).astype(dt)
                d[0] = t[0]
                same(lft[s], d, f"block {b} subtract_left")
                dp = d.copy()
                dp[nv:] = t[nv:]
                same(lp[s], dp, f"block {b} subtract_left (valid {nv})")
                r = (t - nxt).astype(dt)
                r[-1] = (t[-1] - dt.type(3))
                same(rgt[s], r, f"block {b} subtract_right (successor 3)")
            u = np.concatenate([[dt.type(99)], t[:-1]])
            same(up[s], u, f"block {b} up")
            dnw = np.concatenate([t[1:], [dt.type(99)]])
            same(dn[s], dnw, f"block {b} down")
            same(sfx[b * bt:(b + 1) * bt], np.full(bt, t[-1]), f"block {b} up's suffix")
            first = t.reshape(bt, N)[:, 0]
            same(rot[b * bt:(b + 1) * bt], first[(np.arange(bt) + 3) % bt], f"block {b} rotate by 3")
            ow = np.array([first[i - 2] if i >= 2 else dt.type(99) for i in range(bt)], dt)
            same(off[b * bt:(b + 1) * bt], ow, f"block {b} offset by -2")
            same(ra[s], np.sort(t, kind="stable"), f"block {b} radix sort")
            u_bits = t.view(f"u{dt.itemsize}").astype(np.uint64)
            if dt.kind == "i":
                u_bits ^= np.uint64(1) << np.uint64(bits - 1)
            elif dt.kind == "f":
                neg = (u_bits >> np.uint64(bits - 1)) & np.uint64(1)
                u_bits = np.where(neg == 1, ~u_bits & np.uint64((1 << bits) - 1), u_bits ^ (np.uint64(1) << np.uint64(bits - 1)))
            digit = (u_bits >> np.uint64(1)) & np.uint64((1 << (bits - 2)) - 1)
            order = sorted(range(T), key=lambda p: -int(digit[p]))  # descending, stable
            same(rk[s], t[order], f"block {b} radix sort pairs (descending, bits 1..{bits - 1}) keys")
            same(rv[s], np.array(order, np.uint32), f"block {b} radix sort pairs values (the stable order)")
        return not why, why[:6]


class BlockHistRldRankCase:
    """Histogram (sort, then atomic added to it) of bin numbers, a run-length decode window (with offsets; the
    total returned) and a radix rank (descending, 5 bits from bit 1), one block shape, both call forms."""

    BINS = 64

    def __init__(self, form, shape, items):
        self.form, self.shape, self.items = form, shape, items
        self.bt = shape[0] * shape[1] * shape[2]
        self.name = f"bhrr    {form:7} block={shape} items={items:2}"

    def primitives(self):
        B, N = self.shape, self.items
        return [coop.block.make_histogram(np.uint8, B, N, self.BINS),
                coop.block.make_histogram(np.uint8, B, N, self.BINS, algorithm="atomic", init=False),
                coop.block.make_run_length_decode(np.int32, B, N, 3),
                coop.block.make_radix_rank(np.uint16, B, N, radix_bits=5, descending=True)]

    def kernel(self):
        B, N, bt, bins = self.shape, self.items, self.bt, self.BINS
        bx, by = B[0], B[1]
        hs, ha, rld, rk = self.primitives()
        single = self.form == "single"

        def k(d_bins, d_hist, d_vals, d_lens, d_dec, d_off, d_tot, d_keys, d_rank, start):
            tid = cuda.threadIdx.x + cuda.threadIdx.y * bx + cuda.threadIdx.z * bx * by
            b = cuda.blockIdx.x
            base = (b * bt + tid) * N
            hist = coop.shared.array(bins, numba.uint32)
            a = coop.local.array(N, numba.uint8)
            v = coop.local.array(N, numba.int32)
            ln = coop.local.array(N, numba.uint32)
            d = coop.local.array(3, numba.int32)
            o = coop.local.array(3, numba.uint32)
            kk = coop.local.array(N, numba.uint16)
            r = coop.local.array(N, numba.int32)
            for i in range(N):
                a[i] = d_bins[base + i]
                v[i] = d_vals[base + i]
                ln[i] = d_lens[base + i]
                kk[i] = d_keys[base + i]
            hs(a, hist)
            cuda.syncthreads()
            if single:
                coop.block.histogram(a, hist, bins=bins, algorithm="atomic", init=False, threads=B)
            else:
                ha(a, hist)
            cuda.syncthreads()
            i = tid
            while i < bins:
                d_hist[b * bins + i] = hist[i]
                i += bt
            if single:
                total = coop.block.run_length_decode(v, ln, d, o, start, threads=B)
            else:
                total = rld(v, ln, d, o, start)
            for i in range(3):
                d_dec[(b * bt + tid) * 3 + i] = d[i]
                d_off[(b * bt + tid) * 3 + i] = o[i]
            d_tot[b * bt + tid] = total
            cuda.syncthreads()
            rk(kk, r, 1)
            for i in range(N):
                d_rank[base + i] = r[i]
        return k

    def signature(self):
        U8, I, U, U16 = types.uint8[::1], types.int32[::1], types.uint32[::1], types.uint16[::1]
        return (U8, U, I, U, I, U, U, U16, I, types.int32)

    def run(self, rng, poison):
        N, bt, bins = self.items, self.bt, self.BINS
        n = 2 * bt * N
        x = rng.integers(0, bins, n).astype(np.uint8)
        vals = rng.integers(-50, 50, n).astype(np.int32)
        # 1..4, the last quarter of each block's runs 0 (CUB: a run of length zero may be followed only by
        # runs of length zero)
        lens = rng.integers(1, 5, n).astype(np.uint32).reshape(2, bt * N)
        lens[:, bt * N - bt * N // 4:] = 0
        lens = lens.reshape(n)
        keys = rng.integers(0, 1 << 16, n).astype(np.uint16)
        start = int(rng.integers(0, 3 * bt))
        outs = [np.full(2 * bins, 0xA5A5A5A5, np.uint32), np.full(2 * bt * 3, -7, np.int32),
                np.full(2 * bt * 3, 0xA5A5A5A5, np.uint32), np.full(2 * bt, 0xA5A5A5A5, np.uint32), np.full(n, -7, np.int32)]
        dd = [cuda.to_device(a) for a in (x, outs[0], vals, lens, outs[1], outs[2], outs[3], keys, outs[4])]
        cuda.jit(self.kernel())[2, self.shape](*dd, np.int32(start))
        got = [dd[i].copy_to_host() for i in (1, 4, 5, 6, 8)]
        return self.check(x, vals, lens, keys, start, *got)

    def check(self, x, vals, lens, keys, start, hist, dec, off, tot, rank):
        N, bt, bins = self.items, self.bt, self.BINS
        T = bt * N
        why = []
        for b in range(2):
            s = slice(b * T, (b + 1) * T)
            want = 2 * np.bincount(x[s], minlength=bins).astype(np.uint32)
            if not np.array_equal(hist[b * bins:(b + 1) * bins], want):
                why.append(f"block {b} histogram: got {hist[b * bins:b * bins + 8]} want {want[:8]}")
            seq = np.repeat(vals[s], lens[s])
            rel = np.concatenate([np.arange(int(c)) for c in lens[s]]) if lens[s].sum() else np.zeros(0, np.int64)
            total = len(seq)
            if not np.all(tot[b * bt:(b + 1) * bt] == total):
                why.append(f"block {b} run-length decode: totals {tot[b * bt:b * bt + 4]} want {total}")
            frm = min(start, total)
            for t in range(bt):
                for i in range(3):
                    p = frm + t * 3 + i
                    if p < total and (dec[(b * bt + t) * 3 + i] != seq[p] or off[(b * bt + t) * 3 + i] != rel[p]):
                        why.append(f"block {b} thread {t} decoded item {i} (place {p}): got {dec[(b * bt + t) * 3 + i]}"
                                   f"/{off[(b * bt + t) * 3 + i]} want {seq[p]}/{rel[p]}")
                        break
            digit = (keys[s].astype(np.int64) >> 1) & 31
            order = sorted(range(T), key=lambda p: -int(digit[p]))  # descending, stable
            want_rank = np.empty(T, np.int32)
            want_rank[order] = np.arange(T)
            if not np.array_equal(rank[s], want_rank):
                why.append(f"block {b} radix rank: got {rank[s][:8]} want {want_rank[:8]}")
        return not why, why[:6]
