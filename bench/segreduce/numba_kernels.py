"""The segmented-reduction kernels of kernels.cu written in Numba with cooplink.numba's primitives (the
same algorithms, tiles, lane counts and launch bounds), for bench.py --numba: one block per segment
(vectorized BlockLoad, guarded striped tail, BlockReduce), a logical warp of L lanes per segment (two
segments in flight, the next offsets loaded while these are reduced; register-bounded like sr_warp<L>)
and the adaptive launcher's stages with the plan of plan.py.

    k = Kernels(); k.compile(np.float32, "sum")     # the kernels of one type and operator
"""
import math

import numpy as np

THREADS = 256
SEGS = 2                 # segments in flight per logical warp (kernels.cu SR_K; written out in k below)
CHUNK_BYTES = 65536      # plan.CHUNK_BYTES


def identity(dtype, op):
    if op == "sum":
        return dtype.type(0)
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def build(dtype, op):
    """{name: kernel} for one type and operator, as kernels.cu has them."""
    from numba import cuda
    import cooplink.numba as coop
    dtype = np.dtype(dtype)
    nb = coop._primitive.numba_dtype(dtype)
    vec = 16 // dtype.itemsize
    ident = identity(dtype, op)
    chunk = CHUNK_BYTES // dtype.itemsize
    btile = THREADS * vec
    min_blocks = 6 if dtype.itemsize == 8 else 8
    is_sum = op == "sum"

    @cuda.jit(device=True, inline="always")
    def opf(a, b):
        if is_sum:
            return a + b
        return b if a < b else a

    @cuda.jit(device=True, inline="always")
    def thread_reduce(x):
        a = x[0]
        for i in range(1, vec):
            a = opf(a, x[i])
        return a

    @cuda.jit(device=True, inline="always")
    def chunk_count(n):
        return (n + chunk - 1) // chunk

    @cuda.jit(device=True, inline="always")
    def defer(s, n, queue, rec):
        old = cuda.atomic.add(queue, 0, np.uint64((1 << 32) | chunk_count(n)))
        r = old >> 32
        rec[2 * r] = s
        rec[2 * r + 1] = np.int32(old & 0xFFFFFFFF)
        return np.int64(old)  # (shfl_sync takes signed ints)

    @cuda.jit(device=True, inline="always")
    def write_items(s, n, q, lane, lanes, items):
        first = np.int32(q & 0xFFFFFFFF)
        for j in range(lane, chunk_count(n), lanes):
            items[2 * (first + j)] = s
            items[2 * (first + j) + 1] = j

    def range_reduce(load, loadg, tile):
        """acc combined with d_in[p, e) by a group (a logical warp or a block) whose thread `rank` this
        is, loading tiles of `tile` items: the unaligned head one item a thread, full tiles as vectors two
        at a time, the ragged end guarded."""
        @cuda.jit(device=True, inline="always")
        def f(d_in, p, e, rank, acc):
            x = cuda.local.array(vec, nb)
            y = cuda.local.array(vec, nb)
            a = min((p + vec - 1) // vec * vec, e)
            if rank < a - p:
                acc = opf(acc, d_in[p + rank])
            p = a
            while p + 2 * tile <= e:
                load(d_in[p:], x)
                load(d_in[p + tile:], y)
                acc = opf(acc, opf(thread_reduce(x), thread_reduce(y)))
                p += 2 * tile
            if p + tile <= e:
                load(d_in[p:], x)
                acc = opf(acc, thread_reduce(x))
                p += tile
            if p < e:
                loadg(d_in[p:], x, e - p, ident)
                acc = opf(acc, thread_reduce(x))
            return acc
        return f

    kernels = {}

    def warp_kernel(L, bounded):
        wload = coop.warp.make_load(dtype, vec, L, "vectorize")
        wloadg = coop.warp.make_load(dtype, vec, L, "striped")
        wred = coop.warp.make_sum(dtype, L) if is_sum else coop.warp.make_reduce(dtype, op, L)
        tile = L * vec

        warp_range = range_reduce(wload, wloadg, tile)

        @cuda.jit(device=True, inline="always")
        def first_tile(d_in, b, n, defer_items, x):
            if n >= tile and b % vec == 0 and n <= defer_items:
                wload(d_in[b:], x)
            else:
                wloadg(d_in[b:], x, 0 if n > defer_items else min(n, tile), ident)

        @cuda.jit(device=True, inline="always")
        def finish(d_in, out, s, b, e, x, lane, defer_items, queue, rec, items):
            n = e - b
            if n > defer_items:  # lane 0 queues it, the lanes write its work items
                q = defer(s, n, queue, rec) if lane == 0 else np.int64(0)
                first_lane = cuda.threadIdx.x % 32 // L * L
                mask = 0xFFFFFFFF if L == 32 else ((1 << L) - 1) << first_lane
                q = cuda.shfl_sync(mask, q, first_lane)
                write_items(s, n, q, lane, L, items)
                return
            acc = thread_reduce(x)
            if n > tile:
                acc = warp_range(d_in, b + tile, e, lane, acc)
            agg = wred(acc)
            if lane == 0:
                out[s] = agg

        def k(d_in, off, out, n_seg, defer_items, queue, rec, items):
            # two segments in flight (SEGS): their first tiles are loaded before either is reduced, and
            # the next two segments' offsets while these are reduced
            lane = cuda.threadIdx.x % L
            stride = cuda.gridDim.x * (THREADS // L) * SEGS
            s0 = (cuda.blockIdx.x * (THREADS // L) + cuda.threadIdx.x // L) * SEGS
            x0 = cuda.local.array(vec, nb)
            x1 = cuda.local.array(vec, nb)
            o0 = o1 = o2 = np.int32(0)
            if s0 < n_seg:
                o0, o1, o2 = off[s0], off[min(s0 + 1, n_seg)], off[min(s0 + 2, n_seg)]
            while s0 < n_seg:
                first_tile(d_in, o0, o1 - o0, defer_items, x0)
                first_tile(d_in, o1, o2 - o1, defer_items, x1)
                b0, b1, b2 = o0, o1, o2
                nxt = s0 + stride
                if nxt < n_seg:
                    o0, o1, o2 = off[nxt], off[min(nxt + 1, n_seg)], off[min(nxt + 2, n_seg)]
                finish(d_in, out, s0, b0, b1, x0, lane, defer_items, queue, rec, items)
                if s0 + 1 < n_seg:
                    finish(d_in, out, s0 + 1, b1, b2, x1, lane, defer_items, queue, rec, items)
                s0 = nxt
        return cuda.jit(launch_bounds=(THREADS, min_blocks) if bounded else None)(k)

    for L in (4, 8, 16, 32):
        kernels[f"sr_warp{L}"] = warp_kernel(L, True)
        kernels[f"sr_warp{L}u"] = warp_kernel(L, False)

    bload = coop.block.make_load(dtype, THREADS, vec, "vectorize")
    bloadg = coop.block.make_load(dtype, THREADS, vec, "striped")
    bred = coop.block.make_sum(dtype, THREADS) if is_sum else coop.block.make_reduce(dtype, THREADS, op)

    brange = range_reduce(bload, bloadg, btile)

    @cuda.jit(device=True, inline="always")
    def block_range(d_in, p, e):
        return brange(d_in, p, e, cuda.threadIdx.x, ident)

    @cuda.jit(launch_bounds=THREADS)
    def sr_block(d_in, off, out, defer_items, queue, rec, items):
        s = cuda.blockIdx.x
        b, e = off[s], off[s + 1]
        if e - b > defer_items:
            q = cuda.shared.array(1, np.int64)
            if cuda.threadIdx.x == 0:
                q[0] = defer(s, e - b, queue, rec)
            cuda.syncthreads()
            write_items(s, e - b, q[0], cuda.threadIdx.x, THREADS, items)
            return
        agg = bred(block_range(d_in, b, e))
        if cuda.threadIdx.x == 0:
            out[s] = agg

    @cuda.jit(launch_bounds=THREADS)
    def sr_chunks(d_in, off, out, queue, items, partial):
        chunks = np.int64(queue[0] & 0xFFFFFFFF)
        c = cuda.blockIdx.x
        while c < chunks:
            s, j = items[2 * c], items[2 * c + 1]
            sb, se = off[s], off[s + 1]
            b = sb + j * chunk
            agg = bred(block_range(d_in, b, min(b + chunk, se)))
            if cuda.threadIdx.x == 0:
                if se - sb <= chunk:
                    out[s] = agg
                else:
                    partial[c] = agg
            cuda.syncthreads()
            c += cuda.gridDim.x

    wred32 = coop.warp.make_sum(dtype, 32) if is_sum else coop.warp.make_reduce(dtype, op, 32)

    @cuda.jit(launch_bounds=THREADS)
    def sr_finalize(off, out, queue, rec, partial):
        records = np.int64(queue[0] >> 32)
        lane = cuda.threadIdx.x % 32
        i = (cuda.blockIdx.x * THREADS + cuda.threadIdx.x) // 32
        while i < records:
            s, first = rec[2 * i], rec[2 * i + 1]
            n = chunk_count(off[s + 1] - off[s])
            if n > 1:
                acc = ident
                for j in range(lane, n, 32):
                    acc = opf(acc, partial[first + j])
                agg = wred32(acc)
                if lane == 0:
                    out[s] = agg
            i += cuda.gridDim.x * (THREADS // 32)

    kernels.update(sr_block=sr_block, sr_chunks=sr_chunks, sr_finalize=sr_finalize)
    return kernels


class Kernels:
    """bench.py's Numba entry: adds the Numba kernels of a configuration to its Runner."""

    def __init__(self):
        self.cache = {}

    def get(self, dtype, op):
        key = (np.dtype(dtype).str, op)
        if key not in self.cache:
            self.cache[key] = build(dtype, op)
        return self.cache[key]

    def add(self, R, cp, op, d_x, d_off, d_out, n_seg, bytes_, queue, rec, items, partial, sm_count, plan):
        from numba import cuda
        k = self.get(d_x.dtype, op)
        x, o, out = cuda.as_cuda_array(d_x), cuda.as_cuda_array(d_off), cuda.as_cuda_array(d_out)
        q, r, it, pa = (cuda.as_cuda_array(a) for a in (queue, rec, items, partial))
        huge = np.int64(1 << 62)
        R.add("numba block", lambda: k["sr_block"][n_seg, THREADS](x, o, out, huge, q, r, it), d_out, bytes_)
        for L in (8, 16, 32):
            grid = min(math.ceil(n_seg / (THREADS // L * SEGS)), sm_count * 32)
            R.add(f"numba warp{L}", (lambda f, g: lambda: f[g, THREADS](x, o, out, np.int32(n_seg), huge, q, r, it))(
                k[f"sr_warp{L}"], grid), d_out, bytes_)

        def adaptive():
            cp.cuda.runtime.memsetAsync(queue.data.ptr, 0, 8, 0)
            if plan.first == "block":
                k["sr_block"][n_seg, THREADS](x, o, out, np.int64(plan.defer), q, r, it)
            else:
                name = f"sr_warp{plan.lanes}" + ("u" if plan.first == "warpu" else "")
                grid = min(math.ceil(n_seg / (THREADS // plan.lanes * SEGS)), sm_count * 32)
                k[name][grid, THREADS](x, o, out, np.int32(n_seg), np.int64(plan.defer), q, r, it)
            k["sr_chunks"][sm_count * 8, THREADS](x, o, out, q, it, pa)
            k["sr_finalize"][sm_count * 2, THREADS](o, out, q, r, pa)
        R.add("numba adaptive", adaptive, d_out, bytes_, {"plan": str(plan)})
