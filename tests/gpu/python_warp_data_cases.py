"""Warp load, store and exchange cases of the cooplink.numba GPU suite (python_suite.py): power-of-two
logical warps of 1 to 32 lanes, CUB's algorithms, both call forms. Each logical warp loads its tile (plain
and guarded, with random valid counts and an out-of-bounds default), exchanges blocked -> striped ->
blocked and scatters to striped by ranks (the tile reversed), and stores (plain and guarded). Checked
exactly against numpy; outputs poisoned first."""

import numpy as np
import numba
from numba import cuda
from numba.cuda import types

import cooplink.numba as coop

BLOCKS = 2
THREADS = 64
LOADS = ["direct", "striped", "vectorize", "transpose"]


class WarpDataCase:
    def __init__(self, index, tname, form, lanes, items):
        self.tname, self.form, self.lanes, self.items = tname, form, lanes, items
        self.load = LOADS[index % 4]
        self.store = LOADS[(index + 1) % 4]
        self.name = f"wdata   {form:7} {tname:8} lanes={lanes:2} items={items:2} load={self.load} store={self.store}"

    def primitives(self):
        T, L, N = numba.from_dtype(np.dtype(self.tname)), self.lanes, self.items
        return [coop.warp.make_load(T, N, L, self.load), coop.warp.make_store(T, N, L, self.store),
                coop.warp.make_exchange("blocked_to_striped", T, N, L),
                coop.warp.make_exchange(coop.warp.WarpExchangeType.StripedToBlocked, T, N, L),
                coop.warp.make_exchange("scatter_to_striped", T, N, L)]

    def kernel(self):
        T, L, N = numba.from_dtype(np.dtype(self.tname)), self.lanes, self.items
        tile = L * N
        ld, st, b2s, s2b, sct = self.primitives()
        if self.form == "factory":
            def k(d_in, d_ld, d_gld, d_b2s, d_s2b, d_sct, d_st, d_gst, valid, oob):
                t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
                g = t // L
                lane = t % L
                a = coop.local.array(N, T)
                b = coop.local.array(N, T)
                r = coop.local.array(N, numba.int32)
                ld(d_in[g * tile:], a)
                ld(d_in[g * tile:], b, valid[g], oob[0])
                for i in range(N):
                    d_ld[t * N + i] = a[i]
                    d_gld[t * N + i] = b[i]
                    r[i] = tile - 1 - (lane * N + i)
                b2s(a, b)
                for i in range(N):
                    d_b2s[t * N + i] = b[i]
                s2b(b, b)
                for i in range(N):
                    d_s2b[t * N + i] = b[i]
                sct(a, b, r)
                for i in range(N):
                    d_sct[t * N + i] = b[i]
                st(d_st[g * tile:], a)
                st(d_gst[g * tile:], a, valid[g])
        else:
            load, store = self.load, self.store

            def k(d_in, d_ld, d_gld, d_b2s, d_s2b, d_sct, d_st, d_gst, valid, oob):
                t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
                g = t // L
                lane = t % L
                a = coop.local.array(N, T)
                b = coop.local.array(N, T)
                r = coop.local.array(N, numba.int32)
                coop.warp.load(d_in[g * tile:], a, threads_in_warp=L, algorithm=load)
                coop.warp.load(d_in[g * tile:], b, valid[g], oob[0], threads_in_warp=L, algorithm=load)
                for i in range(N):
                    d_ld[t * N + i] = a[i]
                    d_gld[t * N + i] = b[i]
                    r[i] = tile - 1 - (lane * N + i)
                coop.warp.exchange(a, b, threads_in_warp=L)
                for i in range(N):
                    d_b2s[t * N + i] = b[i]
                coop.warp.exchange(b, b, exchange_type="striped_to_blocked", threads_in_warp=L)
                for i in range(N):
                    d_s2b[t * N + i] = b[i]
                coop.warp.exchange(a, b, r, exchange_type="scatter_to_striped", threads_in_warp=L)
                for i in range(N):
                    d_sct[t * N + i] = b[i]
                coop.warp.store(d_st[g * tile:], a, threads_in_warp=L, algorithm=store)
                coop.warp.store(d_gst[g * tile:], a, valid[g], threads_in_warp=L, algorithm=store)
        return k

    def signature(self):
        S = numba.from_dtype(np.dtype(self.tname))
        return (S[::1],) * 8 + (types.int32[::1], S[::1])

    def run(self, rng, poison):
        dt = np.dtype(self.tname)
        L, N = self.lanes, self.items
        n = BLOCKS * THREADS * N
        n_warps = BLOCKS * THREADS // L
        d_in = (rng.integers(-100, 100, n) if dt.kind in "if" else rng.integers(0, 200, n)).astype(dt)
        valid = rng.integers(0, L * N + 1, n_warps).astype(np.int32)
        valid[0] = L * N
        oob = np.array([77], dt)
        outs = [poison(dt, n) for _ in range(7)]
        dd = [cuda.to_device(a) for a in [d_in] + outs + [valid, oob]]
        cuda.jit(self.kernel())[BLOCKS, THREADS](*dd)
        got = [d.copy_to_host() for d in dd[1:8]]
        return self.check(d_in, valid, oob[0], outs[0][0], *got)

    def check(self, d_in, valid, oob, poison_value, ld, gld, b2s, s2b, sct, st, gst):
        L, N = self.lanes, self.items
        T = L * N
        why = []

        def same(got, want, what):
            if not np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True):
                why.append(f"{what}: got {np.asarray(got).ravel()[:8]} want {np.asarray(want).ravel()[:8]}")

        def place(algo, lane, i):  # an item's place in the tile
            return i * L + lane if algo == "striped" else lane * N + i
        for g in range(BLOCKS * THREADS // L):
            tile = d_in[g * T:(g + 1) * T]
            mine = slice(g * T, (g + 1) * T)  # the logical warp's threads' items, lane-major
            A = np.array([[tile[place(self.load, l, i)] for i in range(N)] for l in range(L)])
            same(ld[mine].reshape(L, N), A, f"warp {g} load ({self.load})")
            G = np.array([[tile[j] if j < valid[g] else oob for j in (place(self.load, l, i) for i in range(N))]
                          for l in range(L)])
            same(gld[mine].reshape(L, N), G, f"warp {g} guarded load (valid {valid[g]})")
            flat = A.reshape(-1)  # the blocked order of A
            same(b2s[mine].reshape(L, N), [[flat[i * L + l] for i in range(N)] for l in range(L)],
                 f"warp {g} blocked_to_striped")
            same(s2b[mine].reshape(L, N), A, f"warp {g} striped_to_blocked (round trip)")
            same(sct[mine].reshape(L, N), [[flat[T - 1 - (i * L + l)] for i in range(N)] for l in range(L)],
                 f"warp {g} scatter_to_striped (reversed)")
            want = np.empty(T, d_in.dtype)
            for l in range(L):
                for i in range(N):
                    want[place(self.store, l, i)] = A[l, i]
            same(st[mine], want, f"warp {g} store ({self.store})")
            gw = want.copy()
            gw[valid[g]:] = poison_value
            same(gst[mine], gw, f"warp {g} guarded store (valid {valid[g]})")
        return not why, why[:6]


def warp_data_cases():
    out = []
    types_ = ["int32", "float64", "uint8", "int64", "float32", "int16"]
    for i, lanes in enumerate([1, 2, 4, 8, 16, 32]):
        for j, form in enumerate(("factory", "single")):
            out.append(WarpDataCase(i * 2 + j, types_[(i + j) % len(types_)], form, lanes, [1, 3, 4, 2][(i + j) % 4]))
    return out


KV = np.dtype([("key", np.int32), ("tag", np.int32)], align=True)


def by_half_key(a, b):
    """A record comparator with many ties: by key // 2, descending."""
    return a.key // 2 > b.key // 2


by_half_key_device = cuda.jit(device=True)(by_half_key)


class WarpSortCase:
    """Keys (int32, '<'), and record keys with u32 values (their places) under a Python comparator with
    many ties, plain and guarded: each logical warp's blocked tile sorted stably."""

    def __init__(self, index, form, lanes, items):
        self.form, self.lanes, self.items = form, lanes, items
        self.name = f"wsort   {form:7} lanes={lanes:2} items={items:2}"

    def primitives(self):
        L, N = self.lanes, self.items
        return [coop.warp.make_merge_sort_keys(np.int32, N, "<", L),
                coop.warp.make_merge_sort_pairs(KV, np.uint32, N, by_half_key, L)]

    def kernel(self):
        L, N = self.lanes, self.items
        sk, sp = self.primitives()
        R = numba.from_dtype(KV)
        single = self.form == "single"

        def k(d_keys, d_kv, d_gkeys, d_gkv, d_vals, d_gvals, valid):
            t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            g = t // L
            lane = t % L
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
                v[i] = lane * N + i
                a2[i] = a[i]
                x2[i] = x[i]
                v2[i] = v[i]
            if single:
                coop.warp.merge_sort(a, compare_op="less", threads_in_warp=L)
                coop.warp.merge_sort(x, v, compare_op=by_half_key_device, threads_in_warp=L)
            else:
                sk(a)
                sp(x, v)
            sk(a2, valid[g], numba.int32(1 << 30))
            sp(x2, v2, valid[g], oob[0])
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
        T = self.lanes * self.items
        k0, kv0, valid, dd = sort_inputs(rng, poison, BLOCKS * THREADS * self.items, T, BLOCKS * THREADS // self.lanes)
        cuda.jit(self.kernel())[BLOCKS, THREADS](*dd)
        return check_sorted("warp", T, k0, kv0, valid, *[d.copy_to_host() for d in dd[:6]])


def sort_inputs(rng, poison, n, T, groups):
    """A sort case's inputs (int32 keys and KV records, 0..7: many ties), valid counts a group (the first
    full), and the device arrays of its kernel: keys, kv, guarded keys, guarded kv, values, guarded values, valid."""
    keys = rng.integers(0, 8, n).astype(np.int32)
    kv = np.zeros(n, KV)
    kv["key"] = rng.integers(0, 8, n)
    kv["tag"] = np.arange(n)
    valid = rng.integers(0, T + 1, groups).astype(np.int32)
    valid[0] = T
    dd = [cuda.to_device(a) for a in (keys, kv, poison(np.dtype(np.int32), n), np.zeros(n, KV),
                                      np.full(n, 0xA5A5A5A5, np.uint32), np.full(n, 0xA5A5A5A5, np.uint32), valid)]
    return keys.copy(), kv.copy(), valid, dd


def check_sorted(what, T, k0, kv0, valid, keys, kv, gkeys, gkv, vals, gvals):
    """Each group's tile of T items sorted stably: int32 keys ascending, KV records by key // 2 descending with
    their values (places), plain and over the first valid items (CUB leaves the places after them unspecified)."""
    why = []
    for g in range(len(valid)):
        s = slice(g * T, (g + 1) * T)
        nv = int(valid[g])
        want = np.sort(k0[s], kind="stable")
        if not np.array_equal(keys[s], want):
            why.append(f"{what} {g} keys: got {keys[s][:8]} want {want[:8]}")
        gwant = np.sort(k0[s][:nv], kind="stable")
        if not np.array_equal(gkeys[s][:nv], gwant):
            why.append(f"{what} {g} guarded keys (valid {nv}): got {gkeys[s][:8]} want {gwant[:8]}")
        half = [int(kv0["key"][g * T + p]) // 2 for p in range(T)]
        order = sorted(range(T), key=lambda p: -half[p])  # Python's sort is stable
        if not np.array_equal(vals[s], np.array(order, np.uint32)):
            why.append(f"{what} {g} pairs: values {vals[s][:8]} want the stable order {order[:8]}")
        if not np.array_equal(kv[s]["tag"], kv0["tag"][s][order]):
            why.append(f"{what} {g} pairs: the record keys did not move with their values")
        gorder = sorted(range(nv), key=lambda p: -half[p])
        if not np.array_equal(gvals[s][:nv], np.array(gorder, np.uint32)):
            why.append(f"{what} {g} guarded pairs (valid {nv}): values {gvals[s][:8]} want {gorder[:8]}")
        if not np.array_equal(gkv[s]["tag"][:nv], kv0["tag"][s][gorder]):
            why.append(f"{what} {g} guarded pairs (valid {nv}): the record keys did not move with their values")
    return not why, why[:6]


def warp_sort_cases():
    return [WarpSortCase(i, "factory" if i % 2 == 0 else "single", lanes, [1, 3, 4, 2][i % 4])
            for i, lanes in enumerate([1, 2, 4, 8, 16, 32])]
