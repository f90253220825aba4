"""The kernels of cooplink.numba.segmented_reduce, written with cooplink.numba's primitives: a block per
segment (vectorized BlockLoad, BlockReduce) and a logical warp of L lanes per segment (vectorized WarpLoad,
WarpReduce, two segments in flight), each with the one-launch tail for the segments it defers. The CUDA C
twin, whose comments explain the protocol (sr_queue, sr_tail), is bench/segreduce/kernels.cu.
"""
import functools

import numpy as np

from . import _segplan

THREADS = _segplan.THREADS
SEGS = _segplan.SEGS_IN_FLIGHT  # (written out in the warp kernel: two)
CS = "_cs"  # the input's tiles loaded by ld.cs (the loads' _cs algorithms, CUB's LOAD_CS; kernels.cu SR_LOAD_CS)


def _at_intrinsic(align=0, offset=False):
    """at(ary, i): ary from element i on, without a slice's clamping (the loads use only the address):
    Numba's slices cost the bounded kernels their register budget. align: the address is said to be a
    multiple of it (llvm.assume of its low bits, what kernels.cu's SR_AL, __builtin_assume_aligned, says),
    so that the vectorized loads' own check of it, and the scalar path beside each, fold away. offset:
    at(ary, i, k), ary from element i + k on, k added after i is widened (a tile's address as the base's plus
    a constant, as C's pointer arithmetic gives: i32(i + k) is a 64-bit add cut to 32 bits and widened again,
    which LLVM cannot fold into the base, so every tile had an address computation of its own)."""
    from llvmlite import ir
    from numba.cuda import cgutils, types
    from numba.cuda.extending import intrinsic

    def typer(ary, i, k):
        if not isinstance(ary, types.Array) or ary.ndim != 1 or not isinstance(i, types.Integer) or \
                (offset and not isinstance(k, types.Integer)):
            return None
        return (ary(ary, i, k) if offset else ary(ary, i)), codegen

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        a = context.make_array(aryty)(context, builder, value=args[0])
        idx = context.cast(builder, args[1], sig.args[1], types.intp)
        data = builder.gep(a.data, [idx], inbounds=True)
        if offset:
            k = context.cast(builder, args[2], sig.args[2], types.intp)
            idx = builder.add(idx, k)
            data = builder.gep(data, [k], inbounds=True)
        out = context.make_array(aryty)(context, builder)
        shape = builder.sub(cgutils.unpack_tuple(builder, a.shape)[0], idx)
        if align:
            i64 = ir.IntType(64)
            low = builder.and_(builder.ptrtoint(data, i64), ir.Constant(i64, align - 1))
            assume = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(1)]),
                                                    "llvm.assume")
            builder.call(assume, [builder.icmp_unsigned("==", low, ir.Constant(i64, 0))])
        context.populate_array(out, data=data,
                               shape=cgutils.pack_array(builder, [shape]), strides=a.strides,
                               itemsize=a.itemsize, meminfo=a.meminfo, parent=a.parent)
        return out._getvalue()

    if offset:
        @intrinsic
        def at_k(typingctx, ary, i, k):
            return typer(ary, i, k)
        return at_k

    @intrinsic
    def at(typingctx, ary, i):
        return typer(ary, i, None)
    return at


def _load_intrinsic(qualifier):
    """load(ary, i): ary[i] by `ld.<qualifier>.global`, an access the compiler neither hoists out of a loop
    nor moves across a fence (inline assembly with side effects and a memory clobber). numba-cuda's
    cuda.ldcv/ldcg are pure functions of the address to LLVM: in a spin loop the load is hoisted and the
    loop never ends (measured: the tail hung on the H200 with them)."""
    from llvmlite import ir
    from numba.cuda import types
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
    if _bounded(name):
        # (1- and 2-byte types hold 16 or 8 items a vector, each in its own register: fewer warps)
        min_blocks = min_blocks or {1: 3, 2: 4, 4: 8, 8: 6}[dtype.itemsize]
    elif name == "sr_block":  # (kernels.cu SR_BLOCK_MIN_BLOCKS: 32 registers; its tail's part of the offsets took 34;
        min_blocks = min_blocks or (6 if dtype.itemsize == 8 else 8)  # 8-byte items' ld.cs tiles spilled under 32)
    elif name == "sr_run" and dtype.itemsize == 4:  # (kernels.cu SR_RUN_MIN_BLOCKS for 4-byte types: 64 registers,
        min_blocks = min_blocks or 4  # 8 bytes of spill before the loop, 16 without the bound; float16's 32 items
        # a thread spilled 40 bytes under it, and float64's is kept as measured: no bound)
    else:
        min_blocks = 4 if name.startswith("sr_warp") else None
    return _kernel(dtype.str, op, name, min_blocks)


def _bounded(name):
    """sr_warp<L>: registers bounded so that an SM holds every warp it can (not sr_warp<L>u, sr_warp<L>t)."""
    return name.startswith("sr_warp") and name[-1] not in "ut"


def tiles_in_flight(name):
    """The tiles kernel `name` keeps in flight a thread in its loops, its logical warps' and its blocks' (the
    tail's chunks; kernels.cu WARP_RANGE's U and WARP_KERNEL's BU): four, two in sr_warp<L> (until
    2026-12-04 sr_warp<L>t's tail took two, where kernels.cu's takes four)."""
    return 2 if _bounded(name) else 4


@functools.lru_cache(maxsize=None)
def _kernel(dtype, op, name, min_blocks):
    """The Numba kernel `name` (sr_block, sr_run, sr_warp<L>, sr_warp<L>u, sr_warp<L>t) for one type and operator. Arguments:
    (values, offsets, shift, out, n_seg, defer, tail, queue, items, partial, done, capacity, share_blocks),
    the scalars int32 but the last two (uint32): offsets[i] + shift indexes values; when `tail` is
    non-zero, segments longer than `defer` items are reserved as chunks in the queue (up to `capacity`
    work items; past it a segment is reduced in place) and the blocks take them when their share is done
    (tail.cuh sr_queue: blocks share_blocks and later have no share of their own); queue (8 x uint32),
    items (uint64), partial (dtype) and done (uint32) are zero before a call and after it. min_blocks: the blocks an SM must hold, which bounds the
    registers of sr_warp<L> (default 8, 6 for 8-byte types as kernels.cu, 4 for 2-byte and 3 for 1-byte types)."""
    from numba import cuda
    from . import _primitive, block, warp
    dtype = np.dtype(dtype)
    nb = _primitive.numba_dtype(dtype)
    vec = _segplan.VECTOR_BYTES // dtype.itemsize
    scalar, ident_value = dtype.type, identity(dtype, op).item()
    chunk = _segplan.chunk_items(dtype.itemsize)
    chunk_shift = chunk.bit_length() - 1  # (a power of two)
    assert chunk == 1 << chunk_shift
    btile = THREADS * vec
    at = _at_intrinsic()
    # the 64-register warp kernels' vectorized loads, on 16-byte boundaries by construction (kernels.cu
    # SR_ASSUME_ALIGNED: not the bounded kernels' or sr_block's, where ptxas then spilled)
    at_al = _at_intrinsic(_segplan.VECTOR_BYTES)
    # their tiles' addresses as a base's plus a constant (at_k; the bounded kernels keep at and their registers)
    at_k, at_alk = _at_intrinsic(offset=True), _at_intrinsic(_segplan.VECTOR_BYTES, offset=True)
    # acquire: the queue's counters (segpair.h bm_load_acquire); volatile: the spin on a work item; cg:
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
        return np.uint32((np.uint32(n) + np.uint32(chunk - 1)) >> np.uint32(chunk_shift))

    @cuda.jit(device=True, inline="always")
    def write_items(s, n, first, lane, lanes, items):
        j = np.uint32(lane)
        while j < chunk_count(n):
            cuda.stcg(items, first + j, (np.uint64(s + 1) << np.uint64(32)) | np.uint64(j))
            j += np.uint32(lanes)

    def range_reduce(load, loadg, tile, U, lanes, aligned=False, pairs=False):
        """acc combined with d_in[p, e) by a group (a logical warp or a block) whose thread `rank` this
        is, loading tiles of `tile` items: the unaligned head one item a thread, full tiles as vectors U
        (2 or 4) at a time, then one at a time, the ragged end guarded (kernels.cu WARP_RANGE). aligned
        (the 64-register warp kernels): the full tiles' addresses said to be on 16-byte boundaries (at_al),
        and the range read in fewer round trips, the head combined last and what the full rounds leave
        loaded at once (kernels.cu WARP_RANGE_ROUND), the tiles addressed from one base (at_alk). pairs (with
        aligned): two rounds an iteration."""
        rounds = aligned and U == 4
        if aligned:
            tile_at = at_alk
        else:
            @cuda.jit(device=True, inline="always")
            def tile_at(d_in, p, k):  # (the bounded kernels' and sr_block's addressing, as measured)
                return at(d_in, i32(p + k))

        @cuda.jit(device=True, inline="always")
        def some_tile(d_in, p, k, e, t):
            q = i32(p + k)
            if i32(q + tile) <= e:
                load(tile_at(d_in, p, k), t)
            else:
                loadg(at_k(d_in, p, k), t, i32(max(i32(0), i32(e - q))), ident())

        @cuda.jit(device=True, inline="always")
        def load4(d_in, p, k, x, y, z, w):  # four full tiles from p + k
            load(tile_at(d_in, p, k), x)
            load(tile_at(d_in, p, k + tile), y)
            load(tile_at(d_in, p, k + 2 * tile), z)
            load(tile_at(d_in, p, k + 3 * tile), w)

        @cuda.jit(device=True, inline="always")
        def add4(acc, x, y, z, w):  # a round's tiles combined with acc, in kernels.cu's order
            acc = opf(acc, opf(thread_reduce(x), thread_reduce(y)))
            return opf(acc, opf(thread_reduce(z), thread_reduce(w)))

        @cuda.jit(device=True, inline="always")
        def last_round(d_in, p, e, x, y, z, w):
            # (kernels.cu WARP_RANGE_ROUND's _last) up to three full tiles and the ragged end, at once
            some_tile(d_in, p, 0, e, x)
            some_tile(d_in, p, tile, e, y)
            some_tile(d_in, p, 2 * tile, e, z)
            some_tile(d_in, p, 3 * tile, e, w)
            return opf(opf(thread_reduce(x), thread_reduce(y)), opf(thread_reduce(z), thread_reduce(w)))

        @cuda.jit(device=True, inline="always")
        def f(d_in, p, e, rank, acc):
            x = cuda.local.array(vec, nb)
            y = cuda.local.array(vec, nb)
            z = cuda.local.array(vec, nb)
            w = cuda.local.array(vec, nb)
            a = min(i32((p + i32(vec - 1)) & i32(-vec)), e)  # (p >= 0: the next vector boundary)
            h = ident()  # (rounds: the head, combined last so that the tiles' loads need not wait for it)
            if vec - 1 <= lanes:  # the head: up to vec - 1 items, one a thread
                if rank < i32(a - p):
                    if rounds:
                        h = d_in[u32(p + rank)]
                    else:
                        acc = opf(acc, d_in[u32(p + rank)])
            else:  # (more than the lanes: 1- and 2-byte items in a small logical warp)
                i = rank
                while i < i32(a - p):
                    if rounds:
                        h = opf(h, d_in[u32(p + i)])
                    else:
                        acc = opf(acc, d_in[u32(p + i)])
                    i += lanes
            p = a
            if pairs and rounds:  # two rounds an iteration, eight tiles in flight, as NVVM unrolls kernels.cu's
                x2 = cuda.local.array(vec, nb)  # loop (Numba's IR of it stays rolled, four tiles an iteration:
                y2 = cuda.local.array(vec, nb)  # Numba / CUDA C 1.039 at random lengths, sr_warp32u alone;
                z2 = cuda.local.array(vec, nb)  # bench/README, 2026-12-06); the same operations in the same
                w2 = cuda.local.array(vec, nb)  # order as two rounds (the loop below then runs once at most)
                while i32(p + 8 * tile) <= e:
                    load4(d_in, p, 0, x, y, z, w)
                    load4(d_in, p, 4 * tile, x2, y2, z2, w2)
                    acc = add4(add4(acc, x, y, z, w), x2, y2, z2, w2)
                    p = i32(p + 8 * tile)
            while i32(p + U * tile) <= e:
                if U == 4:
                    load4(d_in, p, 0, x, y, z, w)
                    acc = add4(acc, x, y, z, w)
                else:
                    load(tile_at(d_in, p, 0), x)
                    load(tile_at(d_in, p, tile), y)
                    acc = opf(acc, opf(thread_reduce(x), thread_reduce(y)))
                p = i32(p + U * tile)
            if rounds:
                if p < e:
                    acc = opf(acc, last_round(d_in, p, e, x, y, z, w))
                return opf(acc, h)
            if U == 2:  # (at most one full tile left; a loop here costs the bounded kernels registers)
                if i32(p + tile) <= e:
                    load(tile_at(d_in, p, 0), x)
                    acc = opf(acc, thread_reduce(x))
                    p = i32(p + tile)
            else:
                while i32(p + tile) <= e:
                    load(tile_at(d_in, p, 0), x)
                    acc = opf(acc, thread_reduce(x))
                    p = i32(p + tile)
            if p < e:
                loadg(at(d_in, p), x, i32(e - p), ident())
                acc = opf(acc, thread_reduce(x))
            return acc
        return f

    bload = block.make_load(dtype, THREADS, vec, "vectorize" + CS)
    bloadg = block.make_load(dtype, THREADS, vec, "striped" + CS)
    bred = block.make_sum(dtype, THREADS) if is_sum else block.make_reduce(dtype, THREADS, op)
    brange = range_reduce(bload, bloadg, btile, tiles_in_flight(name), THREADS)

    NONE = np.uint32(0xFFFFFFFF)

    # the queue's words (tail.cuh sr_queue)
    CHUNKS, TAKEN, SHARED, EXITED, STARTED, DEAD = 0, 1, 2, 3, 4, 5

    @cuda.jit(device=True, inline="always")
    def start(q):
        """Counts this block in `started` (kernels.cu sr_start)."""
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(q, STARTED, np.uint32(1))

    @cuda.jit(device=True, inline="always")
    def reserve_cas(q, capacity, count):
        """The first of `count` work items reserved for a segment, or NONE when the queue has no room, by
        compare-and-swap (tail.cuh sr_reserve_cas: the kernels bounded in registers)."""
        c = ld_acquire(q, CHUNKS)
        while True:
            if c > capacity or count > capacity - c:
                return NONE
            seen = cuda.atomic.cas(q, CHUNKS, c, c + count)
            if seen == c:
                return c
            c = seen

    @cuda.jit(device=True, inline="always")
    def reserve_add(q, capacity, count):
        """The same by fetch-and-add; a reservation that does not fit records where the items that will
        never be written begin (tail.cuh sr_reserve_add, sr_failed)."""
        first = cuda.atomic.add(q, CHUNKS, count)
        if first <= capacity and count <= capacity - first:
            return first
        if first < capacity:
            cuda.atomic.max(q, DEAD, capacity - first)
        return NONE

    @cuda.jit(device=True, inline="always")
    def end(q, capacity):
        """The end of the work items that are or will be written (kernels.cu sr_end)."""
        return min(ld_acquire(q, CHUNKS), capacity - ld_acquire(q, DEAD))

    @cuda.jit(device=True, inline="always")
    def take(q, capacity, ranks):
        """A work item, or a ticket for one once every block of the tail's `ranks` has started, or NONE
        (tail.cuh sr_take)."""
        if ld_acquire(q, STARTED) == ranks:
            return cuda.atomic.add(q, TAKEN, np.uint32(1))
        t = ld_acquire(q, TAKEN)
        while True:
            if t >= end(q, capacity):
                return NONE
            seen = cuda.atomic.cas(q, TAKEN, t, t + np.uint32(1))
            if seen == t:
                return t
            t = seen

    @cuda.jit(device=True, inline="always")
    def next_item(q, capacity, share_blocks, rank, ranks):
        """The next ticket for this block, `rank` of the tail's `ranks` (kernels.cu sr_next): the last of
        them, finding none free, waits for reserving to be over and takes what is left."""
        t = take(q, capacity, ranks)
        if t == NONE and rank == ranks - 1:
            while ld_acquire(q, SHARED) < share_blocks:
                t = take(q, capacity, ranks)
                if t != NONE:
                    return t
                cuda.nanosleep(np.uint32(128))
            t = take(q, capacity, ranks)
        return t

    @cuda.jit(device=True, inline="always")
    def item(q, items, t, capacity, share_blocks):
        """Work item t once written, or 0 when there is none (tail.cuh sr_item)."""
        if t == NONE:
            return np.uint64(0)
        while True:
            if t >= capacity - ld_acquire(q, DEAD):
                return np.uint64(0)
            w = ldcv(items, t)
            if w != 0:
                return w
            if ld_acquire(q, SHARED) >= share_blocks and t >= end(q, capacity):
                return np.uint64(0)
            cuda.nanosleep(np.uint32(64))

    @cuda.jit(device=True, inline="always")
    def tail(d_in, off, sh, out, q, items, partial, done, capacity, share_blocks, rank, ranks):
        """Every block, its share done (tail.cuh sr_queue and sr_tail): the deferred segments' chunks,
        a block a chunk, thread 0 taking the next while the block reduces one. rank, ranks: this block's
        place among the blocks of the tail, and their number (the grid's but in sr_block's one launch)."""
        work = cuda.shared.array(1, np.uint64)
        ticket = cuda.shared.array(1, np.uint32)
        combine = cuda.shared.array(1, np.int32)
        tid = cuda.threadIdx.x
        cuda.syncthreads()  # every warp of the block is through its share
        if tid == 0:
            cuda.threadfence()
            if rank < share_blocks:
                cuda.atomic.add(q, SHARED, np.uint32(1))
            if rank >= share_blocks:  # no share: the blocks with one (all started before) reserve
                while ld_acquire(q, SHARED) < share_blocks:
                    cuda.nanosleep(np.uint32(128))
            ticket[0] = next_item(q, capacity, share_blocks, rank, ranks)
            work[0] = item(q, items, ticket[0], capacity, share_blocks)
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
                    held = take(q, capacity, ranks)
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
                        held = next_item(q, capacity, share_blocks, rank, ranks)
                    ticket[0] = held
                    work[0] = item(q, items, held, capacity, share_blocks)
            cuda.syncthreads()
            combining = combine[0] != 0
            cuda.syncthreads()  # (combine is written again in the next step)
        if tid == 0:
            cuda.threadfence()
            if cuda.atomic.add(q, EXITED, np.uint32(1)) == ranks - 1:
                cuda.threadfence()  # every other block of the tail is out
                for i in range(8):  # the last block out: the queue is zero for the next call
                    q[i] = 0

    if name == "sr_block":
        part_len = THREADS + 1  # (a global: numba's shared.array takes no expression)
        # the tail blocks' rare in-place reductions with two tiles in flight (kernels.cu's take four: here that
        # made ptxas spill 16 bytes under the 8-block bound, f32 max; with two, 8, in the tail's code only)
        brange2 = range_reduce(bload, bloadg, btile, 2, THREADS)

        @cuda.jit(launch_bounds=(THREADS, min_blocks))
        def sr_block(d_in, off, sh, out, n_seg, defer_items, use_tail, q, items, partial, done, capacity,
                     share_blocks):
            """kernels.cu sr_block: alone (use_tail 0), every block takes segments; in the one launch, the
            blocks before the last share_blocks take a segment each and leave the long ones to those
            (the tail's blocks), which find them in their part of the offsets and take their chunks."""
            tid = i32(cuda.threadIdx.x)
            seg_blocks = u32(cuda.gridDim.x)
            if use_tail:
                seg_blocks = u32(cuda.gridDim.x - share_blocks) if cuda.gridDim.x > share_blocks else u32(0)
            if u32(cuda.blockIdx.x) < seg_blocks:
                # (uint32, wrapped back after each step: a uint32 index grows to uint64 under `s += seg_blocks`,
                # and Numba compares uint64 with int32 n_seg as float64; int32 could wrap. The offsets by
                # their 64-bit index, so that both are read from one address as in kernels.cu)
                s, n = u32(cuda.blockIdx.x), u32(n_seg)
                while s < n:
                    i = np.int64(s)
                    b, e = i32(off[i] + sh), i32(off[i + 1] + sh)
                    if not use_tail or i32(e - b) <= defer_items:  # (longer: the tail's)
                        # (bred ends with a barrier, as every call given no temp_storage does: kernels.cu's
                        # __syncthreads after the store; another here was a third barrier a segment)
                        agg = bred(brange(d_in, b, e, tid, ident()))
                        if tid == 0:
                            out[s] = agg
                    s = u32(s + seg_blocks)
                return
            so = cuda.shared.array(part_len, np.int32)
            first = cuda.shared.array(1, np.uint32)
            rank = u32(cuda.blockIdx.x) - seg_blocks
            start(q)
            part = (np.int64(n_seg) + np.int64(share_blocks) - 1) // np.int64(share_blocks)
            s_end = i32(min(np.int64(n_seg), np.int64(rank + u32(1)) * part))
            s0 = i32(min(np.int64(n_seg), np.int64(rank) * part))
            while s0 < s_end:
                g = i32(min(THREADS, s_end - s0))
                if tid < g:
                    so[u32(tid)] = i32(off[u32(s0 + tid)] + sh)
                if tid == 0:
                    so[u32(g)] = i32(off[u32(s0 + g)] + sh)
                cuda.syncthreads()
                mine = tid < g and (so[u32(tid + 1)] - so[u32(tid)] > defer_items or seg_blocks == 0)
                if cuda.syncthreads_or(1 if mine else 0):  # (most parts: no long segment)
                    j = i32(0)
                    while j < g:
                        b, e = so[u32(j)], so[u32(j + 1)]
                        here = seg_blocks == 0
                        if e - b > defer_items:
                            if tid == 0:
                                first[0] = reserve_add(q, capacity, chunk_count(e - b))
                            cuda.syncthreads()
                            here = first[0] == NONE  # (no room in the queue: reduced here)
                            if not here:
                                write_items(s0 + j, e - b, first[0], tid, THREADS, items)
                        if here:
                            agg = bred(brange2(d_in, b, e, tid, ident()))
                            if tid == 0:
                                out[u32(s0 + j)] = agg
                        cuda.syncthreads()  # `first` is reused
                        j = i32(j + 1)
                s0 = i32(s0 + THREADS)
            # (the rank computed again here, as in the build the GPU checked; passing `rank` gives other PTX
            # with the same registers and stack, not run on the GPU)
            tail(d_in, off, sh, out, q, items, partial, done, capacity, share_blocks,
                 u32(cuda.blockIdx.x + share_blocks - cuda.gridDim.x), share_blocks)
        return sr_block

    if name == "sr_run":
        return _run_kernel(dtype, op, nb, vec, ident, opf, at, bload, brange, bred, start, reserve_add,
                           write_items, chunk_count, tail, NONE, min_blocks)

    if not name.startswith("sr_warp"):
        raise ValueError(f"no segmented-reduction kernel {name!r}")
    T = _segplan.WARPT_TILES if name[-1] == "t" else 1  # (the first tiles a segment loaded at once)
    assert T in (1, 4)
    L = int(name[len("sr_warp"):].rstrip("ut"))
    log2_l = L.bit_length() - 1
    wload = warp.make_load(dtype, vec, L, "vectorize" + CS)
    wloadg = warp.make_load(dtype, vec, L, "striped" + CS)
    wred = warp.make_sum(dtype, L) if is_sum else warp.make_reduce(dtype, op, L)
    tile = L * vec
    # (sr_warp<L>u: two rounds an iteration; sr_warp<L>t's means leave it a round or less after its first
    # tiles, and its 64 registers spilled 8 bytes with them)
    warp_range = range_reduce(wload, wloadg, tile, tiles_in_flight(name), L, aligned=tiles_in_flight(name) == 4,
                              pairs=name[-1] == "u")
    at0 = at_al if T == 4 else at  # (sr_warp<L>t's first tiles: kernels.cu's SR_AL in WARP_KERNEL)
    reserve = reserve_cas if _bounded(name) else reserve_add  # (kernels.cu WARP_KERNELS)
    # The next two segments' offsets are loaded before these segments' first tiles in the 64-register kernels:
    # after them, ptxas put two of the float32 sum's adds (which wait for the tiles) ahead of the third offset
    # load, and Numba / CUDA C was 1.027 at 1024 items (sr_warp32t, the launcher), 1.014 with the offsets
    # first, in the same run (bench/README, 2026-12-06, fifth session). Not in the bounded kernels: there
    # sr_warp16 and sr_warp32 took 1.10x CUDA C's time at 32 items and sr_warp32 1.016 at 128 (sr_warp8 on the
    # launcher's grid gained 2% at 32).
    offsets_first = not _bounded(name)

    @cuda.jit(device=True, inline="always")
    def first_tile(d_in, b, n, defer_items, x):
        if n >= tile and (b & i32(vec - 1)) == 0 and n <= defer_items:
            wload(at0(d_in, b), x)
        else:
            wloadg(at(d_in, b), x, i32(0) if n > defer_items else i32(min(n, tile)), ident())

    @cuda.jit(device=True, inline="always")
    def later_tile(d_in, b, k, rest, vector, x):
        # (sr_warp<L>t) one of a segment's first tiles after the first, from b + k, `rest` the segment's items
        # from there
        if vector and rest >= tile:
            wload(at_alk(d_in, b, k), x)
        else:
            wloadg(at_k(d_in, b, k), x, i32(max(i32(0), min(rest, i32(tile)))), ident())

    @cuda.jit(device=True, inline="always")
    def first_tiles(d_in, b, n, defer_items, x, y, z, w):
        # the first T tiles of a segment (kernels.cu WARP_KERNEL)
        first_tile(d_in, b, n, defer_items, x)
        if T == 4:
            m = i32(0) if n > defer_items else n
            vector = (b & i32(vec - 1)) == 0
            later_tile(d_in, b, tile, i32(m - tile), vector, y)
            later_tile(d_in, b, 2 * tile, i32(m - 2 * tile), vector, z)
            later_tile(d_in, b, 3 * tile, i32(m - 3 * tile), vector, w)

    @cuda.jit(device=True, inline="always")
    def finish(d_in, out, s, b, e, x, y, z, w, lane, defer_items, q, items, capacity):
        n = i32(e - b)
        acc = thread_reduce(x)  # (the identity for a deferred segment: nothing loaded)
        if T == 4:
            acc = opf(opf(opf(acc, thread_reduce(y)), thread_reduce(z)), thread_reduce(w))
        start = i32(b + T * tile)
        if n > defer_items:  # lane 0 reserves its chunks, the lanes write its work items
            first = np.int32(reserve(q, capacity, chunk_count(n))) if lane == 0 else np.int32(0)
            first_lane = i32(cuda.threadIdx.x & i32(32 - L))  # (L a power of two)
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

    @cuda.jit(device=True, inline="always")
    def offsets3(off, sh, s, n_seg):  # where segments s and s + 1 start, and where s + 1 ends (clamped to n_seg)
        return (i32(off[u32(s)] + sh), i32(off[u32(min(i32(s + 1), n_seg))] + sh),
                i32(off[u32(min(i32(s + 2), n_seg))] + sh))

    def sr_warp(d_in, off, sh, out, n_seg, defer_items, use_tail, q, items, partial, done, capacity, share_blocks):
        # two segments in flight (SEGS): their first tiles are loaded before either is reduced, and the
        # next two segments' offsets while these are reduced
        if use_tail:
            start(q)
        # (L and THREADS powers of two: masks and shifts, not Python's signed % and // on 64 bits)
        lane = i32(cuda.threadIdx.x & i32(L - 1))
        stride = i32(cuda.gridDim.x * (THREADS // L) * SEGS)
        s0 = i32((i32(cuda.blockIdx.x) * i32(THREADS // L) + (i32(cuda.threadIdx.x) >> i32(log2_l))) * SEGS)
        x0 = cuda.local.array(vec, nb)
        x1 = cuda.local.array(vec, nb)
        y0, z0, w0 = cuda.local.array(vec, nb), cuda.local.array(vec, nb), cuda.local.array(vec, nb)  # (T 4)
        y1, z1, w1 = cuda.local.array(vec, nb), cuda.local.array(vec, nb), cuda.local.array(vec, nb)
        o0 = o1 = o2 = np.int32(0)
        if s0 < n_seg:
            o0, o1, o2 = offsets3(off, sh, s0, n_seg)
        while s0 < n_seg:
            b0, b1, b2 = o0, o1, o2
            nxt = i32(s0 + stride)
            if offsets_first and nxt < n_seg:
                o0, o1, o2 = offsets3(off, sh, nxt, n_seg)
            first_tiles(d_in, b0, i32(b1 - b0), defer_items, x0, y0, z0, w0)
            first_tiles(d_in, b1, i32(b2 - b1), defer_items, x1, y1, z1, w1)
            if not offsets_first and nxt < n_seg:
                o0, o1, o2 = offsets3(off, sh, nxt, n_seg)
            finish(d_in, out, s0, b0, b1, x0, y0, z0, w0, lane, defer_items, q, items, capacity)
            if i32(s0 + 1) < n_seg:
                finish(d_in, out, i32(s0 + 1), b1, b2, x1, y1, z1, w1, lane, defer_items, q, items, capacity)
            s0 = nxt
        if use_tail:
            tail(d_in, off, sh, out, q, items, partial, done, capacity, share_blocks, cuda.blockIdx.x,
                 cuda.gridDim.x)
    # (sr_warp<L>u: four tiles in flight a lane and up to 64 registers, as kernels.cu; sr_warp<L>t: the same,
    # with the first four tiles of both segments loaded at once)
    return cuda.jit(launch_bounds=(THREADS, min_blocks))(sr_warp)


def _run_kernel(dtype, op, nb, vec, ident, opf, at, bload, brange, bred, start, reserve_add, write_items,
                chunk_count, tail, NONE, min_blocks):
    """sr_run: a block per run of up to THREADS consecutive segments, their items read as one range
    (runs.cuh sr_run, whose comments explain it): tiles of four vectors a thread (BlockLoad vectorize,
    blocked), each thread's items reduced segment by segment, a segment's partial carried from thread to
    thread and tile to tile by an exclusive BlockScan with a running prefix over (value, ends here) records
    with the segmented operator."""
    from numba import cuda
    from . import _primitive, block
    from . import local as coop_local
    i32, u32 = np.int32, np.uint32
    ipt4 = min(4 * vec, 32)  # four vectors a thread (two of 1-byte items: a BlockLoad takes up to 32 items)
    btile = THREADS * vec
    so_len, mask_words = THREADS + 1, THREADS // 32
    pair = np.dtype([("v", dtype), ("end", np.int32)], align=True)
    pr = _primitive.numba_dtype(pair)

    def segop(x, y, o):  # runs.cuh SR_SEGOP: b's value alone when a segment ends in b
        e = y.end
        v = y.v if e != 0 else opf(x.v, y.v)
        o.end = x.end | e
        o.v = v

    # (called with running=: the running prefix seeds each tile; the initial value is the factory's due)
    # (raking for 8-byte items: fewer registers, three blocks an SM; kernels.cu SR_RUN_SCAN)
    bscan = block.make_exclusive_scan(pair, THREADS, segop, 1, initial_value=(identity(dtype, op).item(), 0),
                                      algorithm="raking" if dtype.itemsize == 8 else "warp_scans")
    bload4 = block.make_load(dtype, THREADS, ipt4, "vectorize" + CS)
    bloadgd = block.make_load(dtype, THREADS, vec, "direct" + CS)

    def make_tile(IPT):
        @cuda.jit(device=True, inline="always")
        def run_tile(x, u, lo, hi, so, ks, ke, out, s0, run):
            """One tile: this thread's IPT items x from position u, of which [lo, hi) are the range's
            (runs.cuh sr_run_tile)."""
            mine = coop_local.array(1, pr)
            carry = coop_local.array(1, pr)
            mine[0].v = ident()
            mine[0].end = 0
            head = ident()
            kh = i32(-1)
            if lo < hi:
                a, b = ks, ke  # the last k with so[k] <= lo: lo's segment, not empty
                while i32(b - a) > i32(1):  # (i32 throughout: Numba computes int32 + int32 in 64 bits)
                    m = i32(i32(a + b) >> i32(1))  # (a 32-bit sum and shift: kernels.cu's two instructions)
                    if so[u32(m)] <= lo:
                        a = m
                    else:
                        b = m
                k = a
                end = so[u32(k + 1)]
                if end >= hi:  # no segment ends before this thread's last item: one reduction (kernels.cu)
                    acc = ident()
                    if lo == u and hi == i32(u + IPT):
                        for i in range(IPT):
                            acc = opf(acc, x[i])
                    else:
                        for i in range(IPT):
                            p = i32(u + i)
                            acc = opf(acc, x[i]) if p >= lo and p < hi else acc
                    if end == hi:  # segment k ends at this thread's last item
                        head = acc
                        kh = k
                        acc = ident()
                else:
                    acc = ident()
                    for i in range(IPT):
                        p = i32(u + i)
                        if p >= lo and p < hi:
                            acc = opf(acc, x[i])
                            if i32(p + 1) == end:  # segment k ends here
                                if kh < 0:
                                    head = acc  # its earlier part comes from the scan
                                    kh = k
                                else:
                                    out[u32(s0 + k)] = acc
                                acc = ident()
                                # the next segment not empty (empty ones are written when the group starts);
                                # its end as the loop read it (read again after the loop, it was two loads
                                # from shared memory more an item than kernels.cu's loop)
                                k = i32(k + 1)
                                end = i32(0x7FFFFFFF)
                                while k < ke:
                                    e1 = so[u32(k + 1)]
                                    if e1 > i32(p + 1):
                                        end = e1
                                        break
                                    k = i32(k + 1)
                mine[0].v = acc
                mine[0].end = 1 if kh >= 0 else 0
            bscan(mine, carry, running=run)  # (ends with a barrier: its temp storage is reused)
            if kh >= 0:
                out[u32(s0 + kh)] = opf(carry[0].v, head)
        return run_tile

    tile4, tile1 = make_tile(ipt4), make_tile(vec)

    @cuda.jit(device=True, inline="always")
    def run_range(d_in, a, e, so, ks, ke, out, s0):
        """The items [a, e) of segments so[ks..ke] (results at out[s0 + k]), tile by tile."""
        run = coop_local.array(1, pr)
        run[0].v = ident()
        run[0].end = 0
        x4 = cuda.local.array(ipt4, nb)
        x1 = cuda.local.array(vec, nb)
        tid = i32(cuda.threadIdx.x)
        p = i32(a & i32(-vec))  # (values are indexed from a 16-byte boundary; a >= 0)
        while i32(p + THREADS * ipt4) <= e:
            bload4(at(d_in, p), x4)
            u = i32(p + tid * ipt4)
            tile4(x4, u, max(u, a), min(i32(u + ipt4), e), so, ks, ke, out, s0, run)
            p = i32(p + THREADS * ipt4)
        while i32(p + btile) <= e:
            bload(at(d_in, p), x1)
            u = i32(p + tid * vec)
            tile1(x1, u, max(u, a), min(i32(u + vec), e), so, ks, ke, out, s0, run)
            p = i32(p + btile)
        if p < e:
            bloadgd(at(d_in, p), x1, i32(e - p), ident())
            u = i32(p + tid * vec)
            tile1(x1, u, max(u, a), min(i32(u + vec), e), so, ks, ke, out, s0, run)

    @cuda.jit(device=True, inline="always")
    def next_bit(mask, k0, g):
        """The first k >= k0 whose bit is set in mask, or g when none (runs.cuh sr_next_bit)."""
        w = i32(k0 // 32)
        while w * 32 < g:
            m = mask[u32(w)]
            if w == k0 // 32:
                m &= u32(0xFFFFFFFF) << u32(k0 % 32)
            if m != 0:
                return min(i32(w * 32 + cuda.popc((m & (~m + u32(1))) - u32(1))), g)
            w = i32(w + 1)
        return g

    @cuda.jit(launch_bounds=(THREADS, min_blocks) if min_blocks else THREADS)
    def sr_run(d_in, off, sh, out, n_seg, defer_items, use_tail, q, items, partial, done, capacity, share_blocks):
        so = cuda.shared.array(so_len, np.int32)
        deferred = cuda.shared.array(mask_words, np.uint32)
        first = cuda.shared.array(THREADS, np.uint32)
        if use_tail:
            start(q)
        tid = i32(cuda.threadIdx.x)
        blocks = i32(share_blocks) if use_tail else i32(cuda.gridDim.x)
        group = i32(min((n_seg + blocks - 1) // max(blocks, 1), THREADS))
        s0 = i32(cuda.blockIdx.x) * group
        while i32(cuda.blockIdx.x) < blocks and s0 < n_seg:
            g = i32(min(group, n_seg - s0))
            if tid < g:
                so[u32(tid)] = i32(off[u32(s0 + tid)] + sh)
            if tid == 0:  # (g may be THREADS)
                so[u32(g)] = i32(off[u32(s0 + g)] + sh)
            if tid < THREADS // 32:
                deferred[u32(tid)] = 0
            cuda.syncthreads()
            n = i32(0)
            if tid < g:
                n = i32(so[u32(tid + 1)] - so[u32(tid)])
                if n <= 0:  # (an empty segment; an end before its start, as CUB: empty)
                    out[u32(s0 + tid)] = ident()
                if use_tail and n > defer_items:
                    f = reserve_add(q, capacity, chunk_count(n))
                    first[u32(tid)] = f
                    if f != NONE:
                        cuda.atomic.or_(deferred, tid // 32, u32(1) << u32(tid % 32))
            ranges = cuda.syncthreads_or(1 if n < 0 else 0) == 0  # offsets that decrease: a segment at a time
            d = next_bit(deferred, 0, g)
            while d < g:  # the deferred segments' work items (rare), by every thread
                write_items(s0 + d, i32(so[u32(d + 1)] - so[u32(d)]), first[u32(d)], tid, THREADS, items)
                d = next_bit(deferred, i32(d + 1), g)
            if ranges:
                k0 = i32(0)
                while k0 < g:
                    k1 = next_bit(deferred, k0, g)
                    if so[u32(k1)] > so[u32(k0)]:
                        run_range(d_in, so[u32(k0)], so[u32(k1)], so, k0, k1, out, s0)
                    k0 = i32(k1 + 1)
            else:
                j = i32(0)
                while j < g:  # (what sr_block does)
                    if so[u32(j + 1)] > so[u32(j)] and (deferred[u32(j) >> u32(5)] >> (u32(j) & u32(31))) & u32(1) == 0:
                        agg = bred(brange(d_in, so[u32(j)], so[u32(j + 1)], tid, ident()))  # (ends with a barrier)
                        if tid == 0:
                            out[u32(s0 + j)] = agg
                    j = i32(j + 1)
            cuda.syncthreads()  # so and deferred are reused
            s0 = i32(s0 + blocks * group)
        if use_tail:
            tail(d_in, off, sh, out, q, items, partial, done, capacity, share_blocks, cuda.blockIdx.x,
                 cuda.gridDim.x)
    return sr_run

