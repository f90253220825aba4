"""Segmented reduction built from cooplink's primitives: `segmented_reduce(values, offsets, out, op)`.

    from cooplink.numba import segmented_reduce
    segmented_reduce(d_values, d_offsets, d_out, "sum")    # d_out[i] = sum(d_values[d_offsets[i]:d_offsets[i+1]])

One launch, whatever the lengths: the kernel and its logical warp are chosen from the mean segment length
(chosen_plan: _segplan.choose), each segment is reduced by a logical warp of 4 to 32 lanes (vectorized WarpLoad,
WarpReduce) or by a block (vectorized BlockLoad, BlockReduce), and the segments much longer than the mean
are left to a tail in which every block of the grid takes chunks of them (a segment of several chunks is
combined, in chunk order, by the block that finishes its last chunk). The CUDA C twin of these kernels,
and what they were measured against, is bench/segreduce (kernels.cu).
"""
import threading

import numpy as np

from . import _segplan
from ._segkernels import THREADS, identity, kernel

__all__ = ["segmented_reduce", "OPS", "identity", "kernel"]

MAX_VALUES = 2 ** 31 - 2 ** 19  # int32 offsets; a chunk (256 KB) past the last index must not overflow
OPS = ("sum", "min", "max", "prod")
_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
           "float64")


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
        raise ValueError(f"segmented_reduce: {n} values: at most 2**31 - 2**19 (int32 offsets, and the kernels' "
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
    p = plan or chosen_plan(n, n_seg, dtype.itemsize)
    if p.defer < 0:
        raise ValueError(f"segmented_reduce: plan {p} defers segments of fewer than 0 items")
    from numba import cuda
    values, offsets, out = (_import(cuda, a, stream) for a in (values, offsets, out))
    # vector loads need values on a 16-byte boundary: index from the boundary below, shifting the offsets
    shift = (ptr % _segplan.VECTOR_BYTES) // dtype.itemsize
    if shift:
        values = cuda.from_cuda_array_interface(
            {"shape": (n + shift,), "typestr": dtype.str, "data": (ptr - shift * dtype.itemsize, False),
             "version": 3, "strides": None}, owner=values, sync=False)
    k = kernel(dtype.str, op, p.kernel)
    # one work queue per stream (the default stream's per host thread: with per-thread default streams,
    # two threads' calls run at once)
    key = (_handle(cuda.current_context()), _handle(stream) if stream else ("default", threading.get_ident()),
           dtype.str)
    cap = _segplan.work_capacity(n, n_seg, dtype.itemsize, p.defer)
    state = _states.setdefault(key, _State()).get(cuda, cap, dtype)
    args = (values, offsets, np.int32(shift), out, np.int32(n_seg), np.int32(min(p.defer, 2 ** 31 - 1)),
            np.int32(1), *state, np.uint32(cap))
    grid, share = _segplan.grid(p, n_seg, _sm_count(), _resident(k, args + (np.uint32(0),)))
    k[grid, THREADS, stream](*args, np.uint32(share))


def chosen_plan(n, n_seg, itemsize):
    """The plan segmented_reduce uses without plan=."""
    return _segplan.choose(n, n_seg, itemsize)


def queue_words_left():
    """Non-zero words left in every work queue this process made (each call must leave 0: checks)."""
    return sum(int(np.count_nonzero(a.copy_to_host())) for st in _states.values()
               for a in (st.queue, st.items, st.done))


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
