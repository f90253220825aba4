"""cooplink.numba.segmented_reduce without a GPU: the plan it picks for each length class, the arguments it
refuses (before any GPU work), and its kernels compiled for sm_90 and linked through libcooplink, every
primitive call inlined. (tests/gpu/segmented_suite.py runs them; bench/segreduce times them.)"""

import re

import numpy as np
import pytest
from numba.cuda import types

from cooplink.numba import _segplan, segmented, segmented_reduce
from conftest import compile_and_link, warp_kernels_of_kernels_cu


class FakeGPUArray:
    """Only the __cuda_array_interface__ the checks read (nothing runs)."""

    def __init__(self, shape, dtype, ptr=0x10000, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": np.dtype(dtype).str, "data": (ptr, False),
                                         "strides": strides, "version": 3}


@pytest.mark.parametrize("mean,itemsize,want", [
    (32, 4, "warp8 defer>8192"), (128, 4, "warpt8 defer>8192"), (1024, 4, "warpt32 defer>8192"), (512, 4, "warpt32 defer>8192"),
    (200, 4, "warpt16 defer>8192"), (100, 8, "warpt16 defer>4096"), (65, 4, "warpt8 defer>8192"),
    (2000, 4, "warpu32 defer>8192"), (8192, 4, "block defer>262144"), (1 << 20, 4, "warpu32 defer>8192"), (1 << 18, 4, "block defer>262144"),
    (32, 8, "warp16 defer>4096"), (8, 4, "warp4 defer>8192"), (64, 1, "warp4 defer>32768"),
    (512, 2, "warp16 defer>16384"), (2048, 2, "warpu16 defer>16384"), (100000, 2, "block defer>524288")])
def test_plan(mean, itemsize, want):
    n = (1 << 28) // itemsize
    assert str(_segplan.choose(n, n // mean, itemsize)) == want


def test_plan_without_warpt_is_the_rule_before_it():
    n = (1 << 28) // 4
    assert [str(_segplan.choose(n, n // m, 4, warpt=False)) for m in (128, 512, 1024)] == [
        "warp16 defer>8192", "warp16 defer>8192", "warpu16 defer>8192"]
    # segmented_reduce's own plan is the rule with sr_warp<L>t (run on the GPU: tests/gpu/segmented_suite.py)
    assert str(segmented.chosen_plan(n, n // 128, 4)) == "warpt8 defer>8192"


def test_grid():
    # the warp kernels: every resident block; those with segments of their own: the fixed kernel's grid (32
    # blocks an SM at most for warps) up to all of them (grid-stride)
    warp8, block = _segplan.Plan("warp", 8, 8192), _segplan.Plan("block", 0, 262144)
    assert _segplan.grid(warp8, 1 << 23, 132, 1056) == (1056, 1056)
    assert _segplan.grid(warp8, 1 << 23, 132, 8448) == (8448, 4224)
    assert _segplan.grid(warp8, 1000, 132, 1056) == (1056, 16)  # 64 segments a block of 8-lane warps
    # sr_block: a block per segment, then two tail blocks an SM (share_blocks: the tail's blocks), or every
    # block the GPU holds at once where that is fewer
    assert _segplan.grid(block, 32768, 132, 1056) == (32768 + 264, 264)
    assert _segplan.grid(block, 256, 132, 1056) == (256 + 264, 264)
    assert _segplan.grid(block, 256, 132, 100) == (256 + 100, 100)
    assert _segplan.grid(block, 2 ** 31 - 2, 132, 1056) == (2 ** 30 + 264, 264)  # (grid-stride past 2**30)
    # sr_warp<L>t (CUDA C): the warp kernels' grid
    warp8t = _segplan.Plan("warpt", 8, 8192)
    assert warp8t.kernel == "sr_warp8t" and _segplan.grid(warp8t, 1 << 23, 132, 528) == (528, 528)


def test_work_capacity_bounds_every_deferral():
    # segments of defer + 1 items, each one chunk (rounded up) plus the chunks of their items
    n, itemsize = 1 << 20, 4
    for defer in (0, 100, 8192, 262144):
        per = defer + 1
        n_seg = n // per
        chunks = n_seg * -(-per // _segplan.chunk_items(itemsize))
        assert chunks <= _segplan.work_capacity(n, n_seg, itemsize, defer)


def _error(*args):
    with pytest.raises((TypeError, ValueError)) as e:
        segmented_reduce(*args)
    return str(e.value)


def test_errors_name_the_problem():
    x, off, out = FakeGPUArray((10,), np.float32), FakeGPUArray((3,), np.int32), FakeGPUArray((2,), np.float32)
    assert _error(np.zeros(10, np.float32), off, out) == (
        "segmented_reduce: values must be a GPU array (a numba device array or any object with "
        "__cuda_array_interface__), got ndarray")
    assert _error(x, FakeGPUArray((3,), np.int64), out) == "segmented_reduce: offsets must be int32, got int64"
    assert _error(x, off, FakeGPUArray((2,), np.float64)) == (
        "segmented_reduce: out has dtype float64, values float32: they must be the same")
    assert _error(x, FakeGPUArray((2,), np.int32), out) == (
        "segmented_reduce: offsets must have len(out) + 1 = 3 entries, got 2")
    assert _error(x, off, out, "mean") == "segmented_reduce: op='mean' is not one of sum, min, max, prod"
    assert _error(FakeGPUArray((2, 5), np.float32), off, out) == (
        "segmented_reduce: values must be 1-D, got shape (2, 5)")
    assert _error(FakeGPUArray((5,), np.float32, strides=(8,)), off, out) == (
        "segmented_reduce: values must be contiguous (stride 8 bytes, item 4)")
    assert _error(FakeGPUArray((10,), np.complex64), off, FakeGPUArray((2,), np.complex64)).startswith(
        "segmented_reduce: values of dtype complex64 are not supported")
    assert _error(FakeGPUArray((10,), np.float32, ptr=0x10002), off, out) == (
        "segmented_reduce: values at address 0x10002 are not aligned to their item size")
    assert _error(FakeGPUArray((2 ** 31 - 2 ** 19 + 1,), np.int8), off, FakeGPUArray((2,), np.int8)) == (
        "segmented_reduce: 2146959361 values: at most 2**31 - 2**19 (int32 offsets, and the kernels' tile "
        "arithmetic a chunk beyond them)")


def test_empty_output_needs_no_gpu():
    # no segments: nothing to do, nothing launched (this machine has no GPU)
    segmented_reduce(FakeGPUArray((10,), np.float32), FakeGPUArray((1,), np.int32), FakeGPUArray((0,), np.float32))


def test_identities_are_cubs():
    assert segmented.identity(np.float32, "max") == np.finfo(np.float32).min
    assert segmented.identity(np.int8, "min") == 127 and segmented.identity(np.uint16, "max") == 0
    assert segmented.identity(np.float64, "prod") == 1 and segmented.identity(np.int64, "sum") == 0


@pytest.mark.parametrize("dtype,op,name", [
    (np.float32, "sum", "sr_block"), (np.float32, "max", "sr_warp8"), (np.float64, "sum", "sr_warp32u"),
    (np.int8, "min", "sr_warp4"), (np.float16, "prod", "sr_block"), (np.float32, "sum", "sr_run"),
    (np.float64, "max", "sr_run"), (np.int8, "min", "sr_run"), (np.float16, "prod", "sr_run"),
    (np.float32, "sum", "sr_warp8t"), (np.float64, "max", "sr_warp32t")])
def test_kernels_link_inlined(device_functions_without_gpu, dtype, op, name):
    k = segmented.kernel(np.dtype(dtype).str, op, name)
    nb = types.float16 if dtype == np.float16 else getattr(types, np.dtype(dtype).name)
    A, U32 = nb[::1], types.uint32[::1]
    sig = (A, types.int32[::1], types.int32, A, types.int32, types.int32, types.int32, U32, types.uint64[::1],
           A, U32, types.uint32, types.uint32)
    out = compile_and_link(k.py_func, sig, launch_bounds=k.targetoptions.get("launch_bounds"))
    ptx = out["ptx"]
    assert re.findall(r"\bcall(?:\.uni)?\b[^;]*", ptx) == [] and ".func" not in ptx
    assert ".local" not in ptx  # the items live in registers (ptxas may still spill a bounded kernel)
    assert len(out["linkables"]) >= 3  # the loads and the reduction, attached by the calls
    regs = [int(r) for r in re.findall(r"(\d+) registers", out["log"])]
    bounded = name.startswith("sr_warp") and name[-1] not in "ut"
    assert regs and (max(regs) <= {1: 80, 2: 64, 4: 32, 8: 40}[np.dtype(dtype).itemsize] if bounded else True), regs
    # a few spilled words at most (the bounded warp kernels, 8-16 bytes by type and operator; a second
    # BlockReduce in the tail once made it 136)
    frames = re.findall(r"(\d+) bytes stack frame", out["log"])
    assert frames and max(int(f) for f in frames) <= 32, out["log"]
    # no integer converted to float64: Numba compares a uint64 with a signed integer so (sr_block's segment
    # index, a uint32 grown to 64 bits, against n_seg: two conversions and a DSETP a segment until 2026-12-06)
    assert re.findall(r"cvt\.rn\.f64\.[su]\d+.*", ptx) == []
    if name[-1] in "ut":  # the 64-register kernels: a round's tiles addressed from one base, as kernels.cu's
        # pointer arithmetic gives (each tile's own 64-bit address computation before 2026-12-06)
        tile = int(re.search(r"sr_warp(\d+)", name).group(1)) * 16
        # (the tiles' loads: ld.global, each offset in its address; or ld.cs, the _cs algorithms' CUB LOAD_CS,
        # _segkernels.CS: inline PTX whose address is a register, each the base plus the offset by an add.s64)
        adds = dict(re.findall(r"add\.s64\s+(%rd\d+), %rd\d+, (\d+);", ptx))
        offsets = {off or adds.get(reg) for reg, off in
                   re.findall(r"ld\.(?:global\.)?(?:cs\.)?v\d\.\w+\s+\{[^}]*\}, \[(%rd\d+)(?:\+(\d+))?\]", ptx)}
        assert {str(tile), str(2 * tile), str(3 * tile)} <= offsets, offsets
        if name.endswith("u"):  # and two rounds an iteration, eight tiles in flight (NVVM unrolls kernels.cu's
            # loop so; Numba's stayed rolled, four, before 2026-12-06: Numba / CUDA C 1.039 at random lengths)
            assert {str(k * tile) for k in range(4, 8)} <= offsets, offsets


def test_loops_keep_the_tiles_in_flight_of_kernels_cu():
    """Each Numba warp kernel's loops keep as many tiles a thread in flight as its CUDA C twin's (kernels.cu
    WARP_RANGE's U, WARP_KERNEL's BU; sr_warp<L>t's tail took two where kernels.cu's takes four, 2026-12-04)."""
    from cooplink.numba import _segkernels
    twins = warp_kernels_of_kernels_cu()
    assert {"sr_warp4", "sr_warp32u", "sr_warp8t", "sr_warp32t"} <= set(twins), twins
    assert {name: (_segkernels.tiles_in_flight(name),) * 2 for name in twins} == twins
    assert _segkernels.tiles_in_flight("sr_block") == _segkernels.tiles_in_flight("sr_run") == 4
