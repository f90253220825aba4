"""Segmented reduction built from cooplink's primitives: `segmented_reduce(values, offsets, out, op)`.

    from cooplink.numba import segmented_reduce
    segmented_reduce(d_values, d_offsets, d_out, "sum")    # d_out[i] = sum(d_values[d_offsets[i]:d_offsets[i+1]])

One launch, whatever the lengths: the kernel and its logical warp are chosen from the mean segment length
(_segplan.choose), each segment is reduced by a logical warp of 4 to 32 lanes (vectorized WarpLoad,
WarpReduce) or by a block (vectorized BlockLoad, BlockReduce), and the segments much longer than the mean
are left to a tail in which every block of the grid takes chunks of them (a segment of several chunks is
combined, in chunk order, by the block that finishes its last chunk). The CUDA C twin of these kernels,
and what they were measured against, is bench/segreduce (kernels.cu).
"""
import functools
import math
import threading

import numpy as np

from . import _segplan

__all__ = ["segmented_reduce", "OPS"]

THREADS = 256
MAX_VALUES = 2 ** 31 - 2 ** 17  # int32 offsets; a chunk (64 KB) past the last index must not overflow
SEGS = 2           # segments in flight per logical warp (kernels.cu SR_K; written out in the warp kernel)
OPS = ("sum", "min", "max", "prod")
_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
           "float64")


def _at_intrinsic():
    """at(ary, i): ary from element i on, without a slice's clamping (the loads use only the address):
    Numba's slices cost the bounded kernels their register budget."""
    from numba.cuda import cgutils, types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def at(typingctx, ary, i):
        if not isinstance(ary, types.Array) or ary.ndim != 1 or not isinstance(i, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            aryty = sig.args[0]
            a = context.make_array(aryty)(context, builder, value=args[0])
            idx = context.cast(builder, args[1], sig.args[1], types.intp)
            out = context.make_array(aryty)(context, builder)
            shape = builder.sub(cgutils.unpack_tuple(builder, a.shape)[0], idx)
            context.populate_array(out, data=builder.gep(a.data, [idx], inbounds=True),
                                   shape=cgutils.pack_array(builder, [shape]), strides=a.strides,
                                   itemsize=a.itemsize, meminfo=a.meminfo, parent=a.parent)
            return out._getvalue()
        return ary(ary, i), codegen
    return at


def _load_intrinsic(qualifier):
    """load(ary, i): ary[i] by `ld.<qualifier>.global`, an access the compiler neither hoists out of a loop
    nor moves across a fence (inline assembly with side effects and a memory clobber). numba-cuda's
    cuda.ldcv/ldcg are pure functions of the address to LLVM: in a spin loop the load is hoisted and the
    loop never ends (measured: the tail hung on the H200 with them)."""
    from llvmlite import ir
    from numba.cuda import cgutils, types
    from numba.cuda.extending import intrinsic
    constraint = {8: "r", 16: "h", 32: "r", 64: "l"}

    @intrinsic
    def load(typingctx, ary, i):
        if not isinstance(ary, types.Array) or not isinstance(i, types.Integer) or \
                ary.dtype.bitwidth not in constraint:
            return None

        def codegen(context, builder, sig, args):
            aryty = sig.args[0]
            a = context.make_array(aryty)(context, builder, value=args[0])
            idx = context.cast(builder, args[1], sig.args[1], types.intp)
            ptr = builder.gep(a.data, [idx], inbounds=True)
            width = aryty.dtype.bitwidth
            vty = context.get_value_type(aryty.dtype)
            fty = ir.FunctionType(vty, [ptr.type])
            asm = ir.InlineAsm(fty, f"ld.{qualifier}.global.b{width} $0, [$1];",
                               f"={constraint[width]},l,~{{memory}}", side_effect=True)
            return builder.call(asm, [ptr])
        return ary.dtype(ary, i), codegen
    return load


def identity(dtype, op):
    """The operator's identity in dtype (what an empty segment gives)."""
    dtype = np.dtype(dtype)
    if op == "sum":
        return dtype.type(0)
    if op == "prod":
        return dtype.type(1)
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return dtype.type(info.max if op == "min" else info.min)  # CUB's: numeric_limits max() and lowest()


def kernel(dtype, op, name, min_blocks=None):
    """(see _kernel) one compiled kernel per (dtype, op, name, min_blocks), however they are spelled"""
    dtype = np.dtype(dtype)
    if name.startswith("sr_warp") and not name.endswith("u"):
        # (1- and 2-byte types hold 16 or 8 items a vector, each in its own register: fewer warps)
        min_blocks = min_blocks or {1: 3, 2: 4, 4: 8, 8: 6}[dtype.itemsize]
    else:
        min_blocks = 4 if name.startswith("sr_warp") else None
    return _kernel(dtype.str, op, name, min_blocks)


@functools.lru_cache(maxsize=None)
def _kernel(dtype, op, name, min_blocks):
    """The Numba kernel `name` (sr_block, sr_warp<L>, sr_warp<L>u) for one type and operator. Arguments:
    (values, offsets, shift, out, n_seg, defer, tail, queue, items, partial, done, capacity, share_blocks),
    the scalars int32 but the last two (uint32): offsets[i] + shift indexes values; when `tail` is
    non-zero, segments longer than `defer` items are reserved as chunks in the queue (up to `capacity`
    work items; past it a segment is reduced in place) and the blocks take them when their share is done
    (kernels.cu sr_queue: blocks share_blocks and later have no share of their own); queue (8 x uint32),
    items (uint64), partial (dtype) and done (uint32) are zero before a call and after it. min_blocks: the blocks an SM must hold, which bounds the
    registers of sr_warp<L> (default 8, 6 for 8-byte types as kernels.cu, 4 for 2-byte and 3 for 1-byte types)."""
    from numba import cuda
    from . import _primitive, block, warp
    dtype = np.dtype(dtype)
    nb = _primitive.numba_dtype(dtype)
    vec = _segplan.VECTOR_BYTES // dtype.itemsize
    scalar, ident_value = dtype.type, identity(dtype, op).item()
    chunk = _segplan.chunk_items(dtype.itemsize)
    btile = THREADS * vec
    at = _at_intrinsic()
    # acquire: the queue's counters (kernels.cu sr_load_acquire); volatile: the spin on a work item; cg:
    # the partials another block wrote (not through this SM's L1)
    ld_acquire, ldcv, ldcg = _load_intrinsic("acquire.gpu"), _load_intrinsic("volatile"), _load_intrinsic("cg")
    i32, u32 = np.int32, np.uint32  # (unsigned indices: Numba wraps signed ones around, keeping shapes live)
    is_sum, is_prod, is_min = op == "sum", op == "prod", op == "min"

    @cuda.jit(device=True, inline="always")
    def ident():
        # made from a Python number in the kernel: numba-cuda 0.30 lowers a float16 global to invalid IR
        return scalar(ident_value)

    @cuda.jit(device=True, inline="always")
    def opf(a, b):
        if is_sum:
            return a + b
        if is_prod:
            return a * b
        if is_min:
            return b if b < a else a  # cub::Min
        return b if a < b else a                 # cub::Max

    @cuda.jit(device=True, inline="always")
    def thread_reduce(x):
        a = x[0]
        for i in range(1, vec):
            a = opf(a, x[i])
        return a

    @cuda.jit(device=True, inline="always")
    def chunk_count(n):
        return np.uint32((n + chunk - 1) // chunk)

    @cuda.jit(device=True, inline="always")
    def write_items(s, n, first, lane, lanes, items):
        j = np.uint32(lane)
        while j < chunk_count(n):
            cuda.stcg(items, first + j, (np.uint64(s + 1) << np.uint64(32)) | np.uint64(j))
            j += np.uint32(lanes)

    def range_reduce(load, loadg, tile, U, lanes):
        """acc combined with d_in[p, e) by a group (a logical warp or a block) whose thread `rank` this
        is, loading tiles of `tile` items: the unaligned head one item a thread, full tiles as vectors U
        (2 or 4) at a time, then one at a time, the ragged end guarded (kernels.cu WARP_RANGE)."""
        @cuda.jit(device=True, inline="always")
        def f(d_in, p, e, rank, acc):
            x = cuda.local.array(vec, nb)
            y = cuda.local.array(vec, nb)
            z = cuda.local.array(vec, nb)
            w = cuda.local.array(vec, nb)
            a = min(i32((p + vec - 1) // vec * vec), e)
            if vec - 1 <= lanes:  # the head: up to vec - 1 items, one a thread
                if rank < a - p:
                    acc = opf(acc, d_in[u32(p + rank)])
            else:  # (more than the lanes: 1- and 2-byte items in a small logical warp)
                i = rank
                while i < a - p:
                    acc = opf(acc, d_in[u32(p + i)])
                    i += lanes
            p = a
            while i32(p + U * tile) <= e:
                load(at(d_in, p), x)
                load(at(d_in, i32(p + tile)), y)
                if U == 4:
                    load(at(d_in, i32(p + 2 * tile)), z)
                    load(at(d_in, i32(p + 3 * tile)), w)
                acc = opf(acc, opf(thread_reduce(x), thread_reduce(y)))
                if U == 4:
                    acc = opf(acc, opf(thread_reduce(z), thread_reduce(w)))
                p = i32(p + U * tile)
            if U == 2:  # (at most one full tile left; a loop here costs the bounded kernels registers)
                if i32(p + tile) <= e:
                    load(at(d_in, p), x)
                    acc = opf(acc, thread_reduce(x))
                    p = i32(p + tile)
            else:
                while i32(p + tile) <= e:
                    load(at(d_in, p), x)
                    acc = opf(acc, thread_reduce(x))
                    p = i32(p + tile)
            if p < e:
                loadg(at(d_in, p), x, i32(e - p), ident())
                acc = opf(acc, thread_reduce(x))
            return acc
        return f

    bload = block.make_load(dtype, THREADS, vec, "vectorize")
    bloadg = block.make_load(dtype, THREADS, vec, "striped")
    bred = block.make_sum(dtype, THREADS) if is_sum else block.make_reduce(dtype, THREADS, op)
    brange = range_reduce(bload, bloadg, btile, 2, THREADS)

    NONE = np.uint32(0xFFFFFFFF)

    @cuda.jit(device=True, inline="always")
    def reserve(q, capacity, count):
        """The first of `count` work items reserved for a segment, or NONE when the queue has no room."""
        c = ld_acquire(q, 0)
        while True:
            if count > capacity - c:
                return NONE
            seen = cuda.atomic.cas(q, 0, c, c + count)
            if seen == c:
                return c
            c = seen

    @cuda.jit(device=True, inline="always")
    def take(q):
        """A reserved work item nobody has taken yet, or NONE."""
        t = ld_acquire(q, 1)
        while True:
            if t >= ld_acquire(q, 0):
                return NONE
            seen = cuda.atomic.cas(q, 1, t, t + np.uint32(1))
            if seen == t:
                return t
            t = seen

    @cuda.jit(device=True, inline="always")
    def next_item(q):
        """The next work item for this block (kernels.cu sr_next): a free one; for the grid's last block,
        once every block is through its share, whatever is left. NONE: leave."""
        t = take(q)
        if t == NONE and cuda.blockIdx.x == cuda.gridDim.x - 1:
            while ld_acquire(q, 2) != cuda.gridDim.x:
                t = take(q)
                if t != NONE:
                    return t
                cuda.nanosleep(np.uint32(128))
            t = take(q)
        return t

    @cuda.jit(device=True, inline="always")
    def item(items, t):
        if t == NONE:
            return np.uint64(0)
        w = ldcv(items, t)
        while w == 0:  # reserved: its writer is running
            cuda.nanosleep(np.uint32(32))
            w = ldcv(items, t)
        return w

    @cuda.jit(device=True, inline="always")
    def tail(d_in, off, sh, out, q, items, partial, done, share_blocks):
        """Every block, its share done (kernels.cu sr_queue and sr_tail): the deferred segments' chunks,
        a block a chunk, thread 0 taking the next while the block reduces one."""
        work = cuda.shared.array(1, np.uint64)
        ticket = cuda.shared.array(1, np.uint32)
        combine = cuda.shared.array(1, np.int32)
        tid = cuda.threadIdx.x
        cuda.syncthreads()  # every warp of the block is through its share
        if tid == 0:
            cuda.threadfence()
            if cuda.blockIdx.x < share_blocks:
                cuda.atomic.add(q, 4, np.uint32(1))
            cuda.atomic.add(q, 2, np.uint32(1))
            if cuda.blockIdx.x >= share_blocks:  # no share: the blocks with one (all started before) reserve
                while ld_acquire(q, 4) < share_blocks:
                    cuda.nanosleep(np.uint32(128))
            ticket[0] = next_item(q)
            work[0] = item(items, ticket[0])
        cuda.syncthreads()
        combining = False
        held = NONE  # (thread 0) the next work item, taken while this chunk is reduced
        while True:
            # one BlockReduce for both steps (a chunk's items, then, after a segment's last chunk, its
            # chunks' partials): Numba keeps the bounded kernels' registers only with a single one
            w = work[0]
            t = ticket[0]
            if w == 0:
                break
            j = np.uint32(w & np.uint64(0xFFFFFFFF))
            s = np.int32(w >> np.uint64(32)) - 1
            sb, se = i32(off[u32(s)] + sh), i32(off[u32(s + 1)] + sh)
            n = chunk_count(se - sb)
            first = t - j
            if combining:  # the segment's chunk partials, in chunk order
                cuda.threadfence()
                acc = ident()
                i = np.uint32(tid)
                while i < n:
                    acc = opf(acc, ldcg(partial, first + i))
                    i += np.uint32(THREADS)
            else:
                if tid == 0:
                    cuda.stcg(items, t, np.uint64(0))
                    held = take(q)
                b = i32(sb + i32(j) * chunk)
                acc = brange(d_in, b, i32(min(b + chunk, se)), i32(tid), ident())
            agg = bred(acc)
            if tid == 0:
                last = 0
                if combining or n == 1:
                    out[u32(s)] = agg
                    if combining:
                        done[first] = 0
                else:
                    partial[t] = agg
                    cuda.threadfence()
                    last = 1 if cuda.atomic.add(done, first, np.uint32(1)) == n - 1 else 0
                combine[0] = last
                if not last:  # on to the work item taken before, or the next one
                    if held == NONE:
                        held = next_item(q)
                    ticket[0] = held
                    work[0] = item(items, held)
            cuda.syncthreads()
            combining = combine[0] != 0
            cuda.syncthreads()  # (combine is written again in the next step)
        if tid == 0:
            cuda.threadfence()
            if cuda.atomic.add(q, 3, np.uint32(1)) == cuda.gridDim.x - 1:
                cuda.threadfence()  # every other block is out
                for i in range(8):  # the last block out: the queue is zero for the next call
                    q[i] = 0

    if name == "sr_block":
        @cuda.jit(launch_bounds=THREADS)
        def sr_block(d_in, off, sh, out, n_seg, defer_items, use_tail, q, items, partial, done, capacity,
                     share_blocks):
            first = cuda.shared.array(1, np.uint32)
            s = cuda.blockIdx.x
            while s < n_seg:
                b, e = i32(off[u32(s)] + sh), i32(off[u32(s + 1)] + sh)
                here = e - b <= defer_items
                if not here:
                    if cuda.threadIdx.x == 0:
                        first[0] = reserve(q, capacity, chunk_count(e - b))
                    cuda.syncthreads()
                    if first[0] != NONE:
                        write_items(s, e - b, first[0], cuda.threadIdx.x, THREADS, items)
                    else:  # no room in the queue: reduced here
                        here = True
                if here:
                    agg = bred(brange(d_in, b, e, i32(cuda.threadIdx.x), ident()))
                    if cuda.threadIdx.x == 0:
                        out[u32(s)] = agg
                cuda.syncthreads()  # `first` is reused
                s += cuda.gridDim.x
            if use_tail:
                tail(d_in, off, sh, out, q, items, partial, done, share_blocks)
        return sr_block

    if not name.startswith("sr_warp"):
        raise ValueError(f"no segmented-reduction kernel {name!r}")
    bounded = not name.endswith("u")
    L = int(name[len("sr_warp"):].rstrip("u"))
    wload = warp.make_load(dtype, vec, L, "vectorize")
    wloadg = warp.make_load(dtype, vec, L, "striped")
    wred = warp.make_sum(dtype, L) if is_sum else warp.make_reduce(dtype, op, L)
    tile = L * vec
    warp_range = range_reduce(wload, wloadg, tile, 2 if bounded else 4, L)

    @cuda.jit(device=True, inline="always")
    def first_tile(d_in, b, n, defer_items, x):
        if n >= tile and b % vec == 0 and n <= defer_items:
            wload(at(d_in, b), x)
        else:
            wloadg(at(d_in, b), x, i32(0) if n > defer_items else i32(min(n, tile)), ident())

    @cuda.jit(device=True, inline="always")
    def finish(d_in, out, s, b, e, x, lane, defer_items, q, items, capacity):
        n = i32(e - b)
        acc = thread_reduce(x)  # (the identity for a deferred segment: nothing loaded)
        start = i32(b + tile)
        if n > defer_items:  # lane 0 reserves its chunks, the lanes write its work items
            first = np.int32(reserve(q, capacity, chunk_count(n))) if lane == 0 else np.int32(0)
            first_lane = cuda.threadIdx.x % 32 // L * L
            mask = 0xFFFFFFFF if L == 32 else ((1 << L) - 1) << first_lane
            first = cuda.shfl_sync(mask, first, first_lane)
            if np.uint32(first) != NONE:
                write_items(s, n, np.uint32(first), lane, L, items)
                return
            start = b  # no room in the queue: reduced here
        if e > start:
            acc = warp_range(d_in, start, e, lane, acc)
        agg = wred(acc)
        if lane == 0:
            out[u32(s)] = agg

    def sr_warp(d_in, off, sh, out, n_seg, defer_items, use_tail, q, items, partial, done, capacity, share_blocks):
        # two segments in flight (SEGS): their first tiles are loaded before either is reduced, and the
        # next two segments' offsets while these are reduced
        lane = i32(cuda.threadIdx.x % L)
        stride = i32(cuda.gridDim.x * (THREADS // L) * SEGS)
        s0 = i32((cuda.blockIdx.x * (THREADS // L) + cuda.threadIdx.x // L) * SEGS)
        x0 = cuda.local.array(vec, nb)
        x1 = cuda.local.array(vec, nb)
        o0 = o1 = o2 = np.int32(0)
        if s0 < n_seg:
            o0, o1, o2 = (i32(off[u32(s0)] + sh), i32(off[u32(min(s0 + 1, n_seg))] + sh),
                          i32(off[u32(min(s0 + 2, n_seg))] + sh))
        while s0 < n_seg:
            first_tile(d_in, o0, i32(o1 - o0), defer_items, x0)
            first_tile(d_in, o1, i32(o2 - o1), defer_items, x1)
            b0, b1, b2 = o0, o1, o2
            nxt = i32(s0 + stride)
            if nxt < n_seg:
                o0, o1, o2 = (i32(off[u32(nxt)] + sh), i32(off[u32(min(nxt + 1, n_seg))] + sh),
                              i32(off[u32(min(nxt + 2, n_seg))] + sh))
            finish(d_in, out, s0, b0, b1, x0, lane, defer_items, q, items, capacity)
            if s0 + 1 < n_seg:
                finish(d_in, out, i32(s0 + 1), b1, b2, x1, lane, defer_items, q, items, capacity)
            s0 = nxt
        if use_tail:
            tail(d_in, off, sh, out, q, items, partial, done, share_blocks)
    # (sr_warp<L>u: four tiles in flight a lane and up to 64 registers, as kernels.cu)
    return cuda.jit(launch_bounds=(THREADS, min_blocks))(sr_warp)


class _State:
    """The tail's queue, work items, partials and counters of one (context, stream, dtype): zero between
    calls (each call leaves them so), grown when a call needs more work items."""

    def __init__(self):
        self.cap = -1

    def get(self, cuda, cap, dtype):
        if cap > self.cap:
            self.queue = cuda.to_device(np.zeros(8, np.uint32))
            self.items = cuda.to_device(np.zeros(cap, np.uint64))
            self.partial = cuda.device_array(cap, dtype)
            self.done = cuda.to_device(np.zeros(cap, np.uint32))
            self.cap = cap
        return self.queue, self.items, self.partial, self.done


_states = {}


def _interface(a, what):
    """(length, dtype, address) from the array's __cuda_array_interface__ (numba device arrays, cupy,
    torch, ...), or an error unless it is 1-D and contiguous."""
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError(f"segmented_reduce: {what} must be a GPU array (a numba device array or any object with "
                        f"__cuda_array_interface__), got {type(a).__name__}")
    shape = tuple(cai["shape"])
    if len(shape) != 1:
        raise ValueError(f"segmented_reduce: {what} must be 1-D, got shape {shape}")
    dtype = np.dtype(cai["typestr"])
    strides = cai.get("strides")
    if strides is not None and shape[0] > 1 and strides[0] != dtype.itemsize:
        raise ValueError(f"segmented_reduce: {what} must be contiguous (stride {strides[0]} bytes, item "
                         f"{dtype.itemsize})")
    return shape[0], dtype, cai["data"][0]


def check_arguments(values, offsets, out, op):
    """(n, n_seg, dtype, address of values) of a call, or TypeError/ValueError naming what is wrong; reads
    only the arrays' __cuda_array_interface__ (no GPU work)."""
    n, dtype, ptr = _interface(values, "values")
    n_off, off_dtype, _ = _interface(offsets, "offsets")
    n_seg, out_dtype, _ = _interface(out, "out")
    if op not in OPS:
        raise ValueError(f"segmented_reduce: op={op!r} is not one of {', '.join(OPS)}")
    if dtype.name not in _DTYPES:
        raise TypeError(f"segmented_reduce: values of dtype {dtype} are not supported (use one of "
                        f"{', '.join(_DTYPES)})")
    if off_dtype != np.int32:
        raise TypeError(f"segmented_reduce: offsets must be int32, got {off_dtype}")
    if out_dtype != dtype:
        raise TypeError(f"segmented_reduce: out has dtype {out_dtype}, values {dtype}: they must be the same")
    if n_off != n_seg + 1:
        raise ValueError(f"segmented_reduce: offsets must have len(out) + 1 = {n_seg + 1} entries, got {n_off}")
    if n > MAX_VALUES:
        raise ValueError(f"segmented_reduce: {n} values: at most 2**31 - 2**17 (int32 offsets, and the kernels' "
                         f"tile arithmetic a chunk beyond them)")
    if ptr % dtype.itemsize:
        raise ValueError(f"segmented_reduce: values at address {ptr:#x} are not aligned to their item size")
    return n, n_seg, dtype, ptr


def segmented_reduce(values, offsets, out, op="sum", stream=0, plan=None):
    """out[i] = op over values[offsets[i]:offsets[i + 1]] for i < len(out) (the identity for an empty
    segment, as CUB's DeviceSegmentedReduce: 0 for sum, 1 for prod, the type's largest finite value for
    min, its lowest for max), on the GPU, asynchronously on `stream` (0 or a numba stream).

    values: 1-D contiguous GPU array of int8..int64, uint8..uint64, float16, float32 or float64 (numba,
    cupy, torch: anything with __cuda_array_interface__); offsets: 1-D int32 GPU array of len(out) + 1
    non-decreasing offsets within values (not checked on the device, as CUB's DeviceSegmentedReduce does
    not); out: 1-D GPU array of values' dtype; op: "sum", "min", "max" or "prod". Integer sums wrap around
    as in C. Calls on one stream follow each other; calls on other streams have their own work queue.
    plan: a _segplan.Plan to use instead of the chosen one."""
    n, n_seg, dtype, ptr = check_arguments(values, offsets, out, op)
    if n_seg == 0:
        return
    from numba import cuda
    values, offsets, out = (_import(cuda, a, stream) for a in (values, offsets, out))
    # vector loads need values on a 16-byte boundary: index from the boundary below, shifting the offsets
    shift = (ptr % _segplan.VECTOR_BYTES) // dtype.itemsize
    if shift:
        values = cuda.from_cuda_array_interface(
            {"shape": (n + shift,), "typestr": dtype.str, "data": (ptr - shift * dtype.itemsize, False),
             "version": 3, "strides": None}, owner=values, sync=False)
    p = plan or _segplan.choose(n, n_seg, dtype.itemsize)
    k = kernel(dtype.str, op, p.kernel)
    if p.defer < 0:
        raise ValueError(f"segmented_reduce: plan {p} defers segments of fewer than 0 items")
    # one work queue per stream (the default stream's per host thread: with per-thread default streams,
    # two threads' calls run at once)
    key = (_handle(cuda.current_context()), _handle(stream) if stream else ("default", threading.get_ident()),
           dtype.str)
    cap = _segplan.work_capacity(n, n_seg, dtype.itemsize, p.defer)
    state = _states.setdefault(key, _State()).get(cuda, cap, dtype)
    args = (values, offsets, np.int32(shift), out, np.int32(n_seg), np.int32(min(p.defer, 2 ** 31 - 1)),
            np.int32(1), *state, np.uint32(cap))
    share = n_seg if p.first == "block" else min(math.ceil(n_seg / (THREADS // p.lanes * SEGS)), _sm_count() * 32)
    # the fixed kernel's grid, or every block the GPU holds at once if that is more (blocks without a share
    # of their own take deferred chunks)
    grid = max(share, _resident(k, args + (np.uint32(0),)))
    k[grid, THREADS, stream](*args, np.uint32(share))


def _import(cuda, a, stream):
    """A numba device array of a GPU array, ordered after the work its producer's stream has queued without
    blocking the host (numba's as_cuda_array synchronizes that stream: with cupy inputs every call would
    wait for the one before it): an event recorded there, waited on by `stream`."""
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    if isinstance(a, DeviceNDArray):
        return a
    cai = a.__cuda_array_interface__
    arr = cuda.from_cuda_array_interface(cai, owner=a, sync=False)
    producer = cai.get("stream")
    ours = _handle(stream) if stream else 0
    if producer is not None and producer != ours and not (ours == 0 and producer == 1):  # (1: legacy default)
        ev = cuda.event(timing=False)
        ev.record(cuda.external_stream(producer))
        ev.wait(stream)
    return arr


def _handle(obj):
    h = obj.handle
    return h.value if hasattr(h, "value") else int(h)


_grids = {}


def _sm_count():
    from numba import cuda
    return cuda.get_current_device().MULTIPROCESSOR_COUNT


def _resident(k, args):
    """The most blocks of kernel k that the GPU holds at once."""
    from numba import cuda, typeof
    sig = tuple(typeof(a) for a in args)
    key = (id(k), sig, _handle(cuda.current_context()))
    if key not in _grids:
        if sig not in k.overloads:
            k.compile(sig)
        _grids[key] = k.overloads[sig].max_cooperative_grid_blocks(THREADS)
    return _grids[key]
