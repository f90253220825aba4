"""cooplink.numba without a GPU: every primitive in both call forms compiles for sm_90, links through
libcooplink, and is inlined (no call, no .func, 0-byte stack frame); the payloads ride on the kernel's own
link; errors are exact."""

import numpy as np
import numba
import pytest
from numba import cuda
from numba.cuda import types

import cooplink.numba as coop
from conftest import assert_inlined, compile_and_link, link_as_numba

F = types.float32[::1]
T, I = 256, 4
TILE = T * I
LOAD_ALGOS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]


# ---------------------------------------------------------------- factories

@pytest.mark.parametrize("algo", LOAD_ALGOS)
def test_factory_load_store(algo):
    ld = coop.block.make_load(np.float32, T, I, algo)
    st = coop.block.make_store(np.float32, T, I, algo)

    def k(d_in, d_out):
        items = cuda.local.array(I, numba.float32)
        base = cuda.blockIdx.x * TILE
        ld(d_in[base:], items)
        st(d_out[base:], items)
    out = compile_and_link(k, (F, F))
    assert_inlined(out)
    assert len(out["linkables"]) == 2  # the two units, attached by the calls
    assert ld.files == [] and st.files == []


def test_factory_guarded_and_explicit_temp():
    ld = coop.block.make_load(np.float32, T, I, "transpose")
    st = coop.block.make_store(np.float32, T, I, "transpose")
    nbytes = max(ld.temp_storage_bytes, st.temp_storage_bytes)
    align = max(ld.temp_storage_alignment, st.temp_storage_alignment)
    assert nbytes > 0 and align >= 4

    def k(d_in, d_out, n):
        temp = coop.shared.array(nbytes, alignment=align)  # dtype defaults to uint8
        items = coop.local.array(I, numba.float32)
        base = cuda.blockIdx.x * TILE
        ld(temp, d_in[base:], items, n - base, numba.float32(-1))
        cuda.syncthreads()
        st(d_out[base:], items, n - base, temp_storage=temp)
    assert_inlined(compile_and_link(k, (F, F, types.int32)))


@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("algo", ["raking", "raking_commutative_only", "warp_reductions"])
def test_factory_reduce(op, algo):
    red = coop.block.make_reduce(np.float32, T, {"sum": "+", "min": np.minimum, "max": max}[op], I, algo)
    part = coop.block.make_reduce(np.float32, T, op, 1, algo)

    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        for i in range(I):
            items[i] = d_in[cuda.threadIdx.x * I + i]
        a = red(items)
        b = part(d_in[cuda.threadIdx.x], 100)  # partial: num_valid
        if cuda.threadIdx.x == 0:
            d_out[0] = a + b
    assert_inlined(compile_and_link(k, (F, F)))


@pytest.mark.parametrize("algo", ["raking", "raking_memoize", "warp_scans"])
def test_factory_scans(algo):
    ex = coop.block.make_exclusive_sum(np.float32, T, I, algorithm=algo)
    inc = coop.block.make_inclusive_sum(np.float32, T, I, algorithm=algo)
    exm = coop.block.make_exclusive_scan(np.float32, T, "max", I, algorithm=algo)
    incm = coop.block.make_inclusive_scan(np.float32, T, np.minimum, I, algorithm=algo)

    def k(d_in, d_out):
        a = coop.local.array(I, numba.float32)
        b = coop.local.array(I, numba.float32)
        agg = cuda.local.array(1, numba.float32)
        run = cuda.local.array(1, numba.float32)
        for i in range(I):
            a[i] = d_in[cuda.threadIdx.x * I + i]
        ex(a, b)
        cuda.syncthreads()
        inc(b, a, block_aggregate=agg)
        cuda.syncthreads()
        exm(a, b, numba.float32(-5))
        cuda.syncthreads()
        exm(b, a)  # no initial value: the identity of max
        cuda.syncthreads()
        run[0] = 0
        incm(a, b, running=run)
        cuda.syncthreads()
        ex(b, a, prefix=run)
        for i in range(I):
            d_out[cuda.threadIdx.x * I + i] = a[i] + agg[0] + run[0]
    assert_inlined(compile_and_link(k, (F, F)))


# ---------------------------------------------------------------- calls with no factory

def test_single_phase_all():
    def k(d_in, d_out, n):
        items = coop.local.array(I, numba.float32)
        out = coop.local.array(I, numba.float32)
        agg = cuda.local.array(1, numba.float32)
        base = cuda.blockIdx.x * TILE
        coop.block.load(d_in[base:], items, threads=T, algorithm="vectorize")
        coop.block.load(d_in[base:], items, n - base, numba.float32(0), threads=T, algorithm="warp_transpose")
        s = coop.block.sum(items, threads=T)
        m = coop.block.reduce(items, op="max", threads=T, algorithm="raking")
        p = coop.block.reduce(d_in[base + cuda.threadIdx.x], n - base, op="min", threads=T, items_per_thread=1)
        coop.block.exclusive_sum(items, out, threads=T, aggregate=agg)
        coop.block.inclusive_scan(out, items, op="min", threads=T, algorithm="warp_scans")
        coop.block.exclusive_scan(items, out, numba.float32(3), op="max", threads=T)
        coop.block.scan(out, items, mode="inclusive", op="sum", threads=T, algorithm="raking_memoize")
        coop.block.inclusive_sum(items, out, threads=T)
        coop.block.store(d_out[base:], out, n - base, threads=T, algorithm="striped")
        if cuda.threadIdx.x == 0:
            d_out[0] = s + m + p + agg[0]
    assert_inlined(compile_and_link(k, (F, F, types.int32)))


def test_cuda_local_array_with_items_per_thread():
    def k(d_in, d_out):
        items = cuda.local.array(I, numba.float32)
        coop.block.load(d_in, items, threads=T, items_per_thread=I)
        coop.block.store(d_out, items, threads=T, items_per_thread=I)
    assert_inlined(compile_and_link(k, (F, F)))


@pytest.mark.skipif(not cuda.is_available(), reason="numba-cuda compiles device functions for a device")
def test_device_function_carries_its_payload():
    red = coop.block.make_sum(np.float32, T, I)

    @cuda.jit(device=True)
    def total(items):
        return red(items)

    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        coop.block.load(d_in, items, threads=T)
        t = total(items)
        if cuda.threadIdx.x == 0:
            d_out[0] = t
    # the device function's bundle reaches the kernel's link
    from numba.cuda.cudadrv.linkable_code import Fatbin
    codes, _ = cuda.compile_all(k, (F, F), device=False, abi="numba", cc=(9, 0), output="ltoir")
    assert sum(isinstance(c, Fatbin) for c in codes) == 2
    assert_inlined(compile_and_link(k, (F, F)))


# ---------------------------------------------------------------- errors, exact

def _typing_error(kernel, sig=(F, F)):
    with pytest.raises(numba.core.errors.TypingError) as e:
        cuda.compile(kernel, sig, device=False, abi="numba", cc=(9, 0), output="ltoir")
    return str(e.value)


def test_error_dtype():
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.complex64, T, I)
    assert str(e.value) == ("dtype=complex64: unsupported type (cooplink has int8..int64, uint8..uint64, "
                            "float16, bfloat16, float32, float64)")
    with pytest.raises(ValueError) as e:
        coop.block.make_sum(np.bool_, T, I)
    assert str(e.value) == ("dtype=bool: unsupported type (cooplink has int8..int64, uint8..uint64, float16, "
                            "bfloat16, float32, float64)")


def test_error_threads():
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, 2048, I)
    assert str(e.value) == "threads_per_block=2048: 2048 threads; a CUDA block has at most 1024"
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, (64, 32), I)
    assert str(e.value) == "threads_per_block=(64, 32): 2048 threads; a CUDA block has at most 1024"
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, [256], I)
    assert str(e.value) == "threads_per_block=[256]: give an int or a 2- or 3-tuple of ints"

    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        coop.block.load(d_in, items, threads=(32, 64))
    assert "coop.block.load: threads=(32, 64): 2048 threads; a CUDA block has at most 1024" in _typing_error(k)


def test_error_no_launch_shape():
    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        coop.block.load(d_in, items)
    assert ("coop.block.load: the block shape is not known: the kernel is compiled without a launch "
            "(an eager signature or cuda.compile); pass threads=") in _typing_error(k)


def test_error_items_mismatch():
    red = coop.block.make_sum(np.float32, T, I)

    def k(d_in, d_out):
        items = coop.local.array(3, numba.float32)
        d_out[0] = red(items)
    assert ("coop_block_reduce_sum_f32_t256_i4_warp_reductions: argument 'items': the array holds 3 items "
            "per thread, the primitive takes items_per_thread=4") in _typing_error(k)

    def k2(d_in, d_out):
        items = coop.local.array(3, numba.float32)
        coop.block.load(d_in, items, threads=T, items_per_thread=4)
    assert "coop.block.load: items_per_thread=4, but 'items' holds 3 items" in _typing_error(k2)

    def k3(d_in, d_out):
        items = cuda.local.array(4, numba.float32)
        coop.block.load(d_in, items, threads=T)
    assert ("coop.block.load: items per thread cannot be read from 'items' (a cuda.local.array's type has no "
            "length): allocate it with coop.local.array(n, dtype) or pass items_per_thread=") in _typing_error(k3)


def test_error_bitwise_on_float():
    with pytest.raises(ValueError) as e:
        coop.block.make_reduce(np.float32, T, "bit_and", I)
    assert str(e.value) == "binary_op='and' is a bitwise operator; dtype=float32 is not an integer type"

    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        d_out[0] = coop.block.reduce(items, op="xor", threads=T)
    assert "binary_op='xor' is a bitwise operator; dtype=float32 is not an integer type" in _typing_error(k)


def test_error_scalar_for_array():
    ld = coop.block.make_load(np.float32, T, I)

    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        ld(d_in[0], items)
    assert ("coop_block_load_f32_t256_i4_direct: argument 'tile_src' must be the block's tile (a device or "
            "shared array), got a scalar (float32)") in _typing_error(k)

    def k2(d_in, d_out):
        ld(d_in, 1.5)
    assert ("argument 'items' must be an array of 4 float32 items (cuda.local.array), got a scalar (float64)"
            in _typing_error(k2))

    def k3(d_in, d_out):
        items = coop.local.array(I, numba.int32)
        ld(d_in, items)
    assert "argument 'items' must hold float32, got an array of int32" in _typing_error(k3)


def test_error_algorithm():
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, T, I, "bogus")
    assert str(e.value) == ("algorithm='bogus' is not a block load algorithm (use 'direct', 'striped', "
                            "'vectorize', 'transpose', 'warp_transpose', 'warp_transpose_ts', 'direct_cs', "
                            "'striped_cs', 'vectorize_cs', 'transpose_cs', 'warp_transpose_cs', "
                            "'warp_transpose_ts_cs', or 'warp_transpose_timesliced')")
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, 48, I, "warp_transpose")
    assert str(e.value) == ("algorithm='warp_transpose' needs a thread count that is a multiple of 32, got 48")
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, 48, I, "warp_transpose_cs")
    assert str(e.value) == ("algorithm='warp_transpose_cs' needs a thread count that is a multiple of 32, got 48")
    with pytest.raises(ValueError) as e:
        coop.block.make_sum(np.float32, T, I, "fast")
    assert str(e.value) == ("algorithm='fast' is not a block reduce algorithm (use 'raking', 'raking_comm', "
                            "'warp_reductions', or 'raking_commutative_only')")
    with pytest.raises(ValueError) as e:
        coop.block.make_histogram(np.uint8, 128, 4, 256, algorithm="radix")
    assert str(e.value) == "algorithm='radix' is not a block histogram algorithm (use 'sort', 'atomic')"
    with pytest.raises(ValueError) as e:
        coop.warp.make_load(np.float32, 4, 16, "warp_transpose")
    assert str(e.value) == ("algorithm='warp_transpose' is not a warp load algorithm (use 'direct', 'striped', "
                            "'vectorize', 'transpose', 'direct_cs', 'striped_cs', 'vectorize_cs', 'transpose_cs')")


def test_algorithms_are_the_generators():
    """The factories take every algorithm coopgen takes, as `coopgen --describe` lists them (libcooplink's
    coop_gen_describe: no list of the Python layer's own), and the warp-transposing ones on whole warps only."""
    import json
    import os
    import subprocess
    import sys
    from cooplink import _lib
    coopgen = os.path.join(os.path.dirname(sys.executable), "coopgen")  # (the wheel's script, in the venv)
    described = json.loads(subprocess.run([coopgen, "--describe"], check=True, capture_output=True,
                                          text=True).stdout)["families"]
    assert described == _lib.families()
    load = [a["name"] for a in described["block_load"]["algorithms"]]
    assert "vectorize_cs" in load and "warp_transpose_ts" in load
    for a in load:
        assert coop.block.make_load(np.float32, 64, I, a).algorithm == a
        if next(x for x in described["block_load"]["algorithms"] if x["name"] == a)["warp_multiple"]:
            with pytest.raises(ValueError, match="multiple of 32"):
                coop.block.make_load(np.float32, 48, I, a)
        else:
            assert coop.block.make_load(np.float32, 48, I, a).algorithm == a
    for a in described["warp_store"]["algorithms"]:
        assert coop.warp.make_store(np.float32, 4, 16, a["name"]).algorithm == a["name"]


def test_error_temp_storage():
    red = coop.block.make_sum(np.float32, T, I, "raking")
    need, align = red.temp_storage_bytes, red.temp_storage_alignment

    def k(d_in, d_out):
        temp = coop.shared.array(8, numba.uint8, alignment=16)
        items = coop.local.array(I, numba.float32)
        d_out[0] = red(temp, items)
    assert (f"coop_block_reduce_sum_f32_t256_i4_raking: temp_storage holds 8 bytes; the primitive needs {need} "
            f"(temp_storage_bytes)") in _typing_error(k)

    def k2(d_in, d_out):
        temp = cuda.shared.array(4096, numba.uint8)
        items = coop.local.array(I, numba.float32)
        d_out[0] = red(temp, items)
    assert (f"temp_storage is aligned to 1 bytes (a cuda.shared.array's type records neither its size nor an "
            f"alignment= given to it); the primitive needs {align} (temp_storage_alignment): allocate it with "
            f"coop.shared.array({need}, alignment={align})") in _typing_error(k2)


def test_error_unknown_op_and_callable():
    with pytest.raises(ValueError) as e:
        coop.block.make_reduce(np.float32, T, "avg", I)
    assert str(e.value).startswith("binary_op='avg' is not a known operator")

    with pytest.raises(ValueError) as e:
        coop.block.make_reduce(np.float32, T, 3, I)
    assert str(e.value).startswith("binary_op=3 is not a known operator")


def test_error_prefix_callback():
    with pytest.raises(ValueError) as e:
        coop.block.make_exclusive_sum(np.float32, T, I, prefix_op=object())
    assert "prefix callbacks are not supported; pass running=<one-element array>" in str(e.value)


def test_error_numba_cuda_too_old():
    from cooplink.numba import _compat
    with pytest.raises(ImportError) as e:
        _compat.check("0.29.1")
    assert str(e.value) == ("cooplink.numba needs numba-cuda >= 0.30.4; found numba-cuda 0.29.1 "
                            "(pip install -U 'numba-cuda[cu13]>=0.30.4')")
    assert _compat.check("0.30.4") == "0.30.4"


def test_cuda_coop_one_item_forms():
    """cuda.coop's items_per_thread == 1 forms: y = scan(x), scan(temp, x), agg = reduce(temp, x, n)."""
    ex = coop.block.make_exclusive_sum(np.float32, T, 1)
    inc = coop.block.make_inclusive_scan(np.float32, T, "max", 1)
    red = coop.block.make_reduce(np.float32, T, "max", 1)
    tb = max(ex.temp_storage_bytes, red.temp_storage_bytes)
    ta = max(ex.temp_storage_alignment, red.temp_storage_alignment)

    def k(d_in, d_out):
        temp = coop.shared.array(tb, alignment=ta)
        x = d_in[cuda.threadIdx.x]
        y = ex(x)
        cuda.syncthreads()
        z = inc(temp, y)
        cuda.syncthreads()
        m = red(temp, z, 100)
        d_out[cuda.threadIdx.x] = y + z + m
    assert_inlined(compile_and_link(k, (F, F)))


def test_attached_payloads_suffice():
    """What Numba's own link receives (the kernel and the payloads its calls attached, one per bundle),
    linked as Numba links it, is complete and inlined."""
    ld = coop.block.make_load(np.float32, T, I, "warp_transpose")
    red = coop.block.make_reduce(np.float32, T, "max", I, "raking")

    def k(d_in, d_out):
        items = coop.local.array(I, numba.float32)
        out = coop.local.array(I, numba.float32)
        ld(d_in, items)
        m = red(items)
        coop.block.inclusive_sum(items, out, threads=T)
        coop.block.store(d_out, out, threads=T, algorithm="transpose")
        if cuda.threadIdx.x == 0:
            d_out[0] = m
    out = link_as_numba(k, (F, F))
    assert_inlined(out)
    assert len(out["linkables"]) == 4  # load, reduce, scan and store units, each attached once


# ---------------------------------------------------------------- warp primitives

I32 = types.int32[::1]


def test_warp_factories():
    """cuda.coop 1.0.2's warp factories and cooplink's others, shuffle (power-of-two) and shared-memory
    logical warps, full and partial, with and without the aggregate: compiled, linked, inlined."""
    ws = coop.warp.make_sum(np.float32, 8)
    wr7 = coop.warp.make_reduce(np.int32, "max", 7)
    wx = coop.warp.make_exclusive_sum(np.float32, 16)
    wi = coop.warp.make_inclusive_sum(np.float32)
    wsc = coop.warp.make_exclusive_scan(np.int32, "min", 12, initial_value=5)
    wis = coop.warp.make_inclusive_scan(np.int32, np.maximum, 3)
    assert ws.temp_storage_bytes == 0 and wx.temp_storage_bytes == 0  # CUB's shuffle versions
    assert wr7.temp_storage_bytes > 0 and wr7.temp_storage_alignment == 4
    assert ws.files == []

    def k(d_in, d_out, d_i):
        t = cuda.threadIdx.x
        x = d_in[t]
        agg = coop.local.array(1, numba.float32)
        a = ws(x) + ws(x, 5) + wx(x, aggregate=agg) + wi(x) + agg[0]
        m = wr7(d_i[t]) + wr7(d_i[t], 3) + wsc(d_i[t]) + wsc(d_i[t], 9) + wis(d_i[t])
        d_out[t] = a + numba.float32(m)
    out = compile_and_link(k, (F, F, I32))
    assert_inlined(out)
    assert len(out["linkables"]) == 6


def test_warp_single_phase():
    def k(d_in, d_out, d_i):
        t = cuda.threadIdx.x
        x = d_in[t]
        agg = coop.local.array(1, numba.int32)
        a = coop.warp.sum(x) + coop.warp.reduce(x, op="min", threads_in_warp=4) + coop.warp.sum(x, 3)
        b = coop.warp.exclusive_sum(x, threads_in_warp=16) + coop.warp.inclusive_sum(x, threads_in_warp=5)
        c = coop.warp.exclusive_scan(d_i[t], numba.int32(-1), op="max", threads_in_warp=8, aggregate=agg)
        c += coop.warp.inclusive_scan(d_i[t], op="xor", threads_in_warp=31) + agg[0]
        d_out[t] = a + b + numba.float32(c)
    assert_inlined(compile_and_link(k, (F, F, I32)))


def test_warp_errors():
    with pytest.raises(ValueError) as e:
        coop.warp.make_sum(np.float32, 33)
    assert str(e.value) == "threads_in_warp=33: a logical warp has 1 to 32 threads"
    with pytest.raises(ValueError) as e:
        coop.warp.make_reduce(np.float32, "xor", 8)
    assert str(e.value) == "binary_op='xor' is a bitwise operator; dtype=float32 is not an integer type"
    with pytest.raises(ValueError) as e:
        coop.warp.make_reduce(np.int32, "sum", 8, methods={"add": None})
    assert str(e.value) == ("methods={'add': None}: cooplink takes a user type as a record dtype (a numpy "
                            "structured dtype) with a Python operator; methods= is not used")
    wr = coop.warp.make_sum(np.int32, 7)
    with pytest.raises(TypeError) as e:  # CUB's logical warps of 7 never span hardware warps
        wr.check_warps((40, 1, 1))
    assert str(e.value) == ("warp_reduce_sum_i32_w7: logical warps of 7 threads, but the kernel is launched with "
                            "blockdim=(40, 1, 1) (40 threads, 8 in the last hardware warp), which is not a whole "
                            "number of them")
    wr.check_warps((32 + 14, 1, 1))
    coop.warp.make_sum(np.int32, 8).check_warps((40, 1, 1))  # a partial last hardware warp of whole warps

    def k(d_in, d_out):
        d_out[0] = coop.warp.sum(d_in, threads_in_warp=8)
    assert ("coop.warp.sum: each thread gives one value (a scalar), got an array (array(float32, 1d, C))"
            in _typing_error(k))

    def k2(d_in, d_out):
        d_out[0] = coop.warp.sum(d_in[0], threads_in_warp=0)
    assert "coop.warp.sum: threads_in_warp=0: a logical warp has 1 to 32 threads" in _typing_error(k2)


# ---------------------------------------------------------------- operators given as Python functions

def test_closures_of_one_body_are_other_operators():
    """One operator body closed over other values is another operator: another symbol, another primitive
    (segmented_reduce's sr_run built its uint8 max with its sum's operator when both were named alike)."""
    def make(is_sum):
        @cuda.jit(device=True)
        def opf(a, b):
            return a + b if is_sum else max(a, b)

        def seg(a, b):
            return opf(a, b)
        return seg
    s1, m, s2 = make(True), make(False), make(True)
    scans = [coop.block.make_exclusive_scan(np.uint8, 128, f, 1, initial_value=0, algorithm="warp_scans")
             for f in (s1, m, s2)]
    assert scans[0].name != scans[1].name
    assert scans[0].name == scans[2].name  # (the same operator: the same symbol, one bundle for both)
    assert all(sc.name.startswith("block_exclusive_scan_custom_py_seg_") for sc in scans), scans[0].name


def test_python_function_operators(device_functions_without_gpu):
    """A non-commutative Python operator in block reduce, block scan and warp reduce: one C-ABI device
    function compiled by Numba, attached once, called by name from the generated bundles, all inlined."""
    def mat(a, b):
        return a * numba.float32(2) - b
    red = coop.block.make_reduce(np.float32, 128, mat, 4, "raking")
    scan = coop.block.make_exclusive_scan(np.float32, 128, mat, 4, initial_value=1.0, algorithm="warp_scans")
    wr = coop.warp.make_reduce(np.float32, mat, 8)
    assert red.name.startswith("block_reduce_custom_py_mat_") and red.name.endswith("_f32_f32_t128_i4_raking")

    def k(d_in, d_out):
        items = coop.local.array(4, numba.float32)
        out = coop.local.array(4, numba.float32)
        t = cuda.threadIdx.x
        for i in range(4):
            items[i] = d_in[t * 4 + i]
        a = red(items)
        scan(items, out)
        d_out[t] = a + out[0] + wr(d_in[t])
    out = compile_and_link(k, (F, F))
    assert_inlined(out)
    names = sorted(c.name for c in out["linkables"])
    assert len(names) == 4 and sum(n.startswith("py_mat_") for n in names) == 1, names


def test_python_function_operator_errors(device_functions_without_gpu):
    def mat(a, b):
        return a - b
    for make in (lambda: coop.block.make_exclusive_scan(np.float32, 128, mat, 4),
                 lambda: coop.warp.make_exclusive_scan(np.float32, mat, 8)):
        with pytest.raises(ValueError) as e:
            make()
        assert str(e.value) == ("scan_op='mat': an exclusive scan with a Python function as its operator has no "
                                "identity to start from: give initial_value=")
    red = coop.block.make_reduce(np.float32, 128, mat, 4, "raking_commutative_only")

    def k2(d_in, d_out):
        items = coop.local.array(4, numba.float32)
        d_out[0] = red(items)
    text = _typing_error(k2)
    assert "with algorithm 'raking_comm': CUB's commutative-only reduction reorders operands" in text, text


# ---------------------------------------------------------------- user types: record dtypes

MAT2 = np.dtype([("a", np.float32), ("b", np.float32), ("c", np.float32), ("d", np.float32)], align=True)


def matmul(x, y, o):
    """A 2x2 matrix product (not commutative), a record operator: writes x @ y into o."""
    a = x.a * y.a + x.b * y.c
    b = x.a * y.b + x.b * y.d
    c = x.c * y.a + x.d * y.c
    o.d = x.c * y.b + x.d * y.d
    o.a, o.b, o.c = a, b, c


def test_record_user_type(device_functions_without_gpu):
    """A record dtype as a user type (named after its layout) through block load, block reduce and scan,
    warp reduce and scan with a record operator (op(a, b, out)), and block store: inlined."""
    R = numba.from_dtype(MAT2)
    load = coop.block.make_load(MAT2, 64, 2, "warp_transpose")
    red = coop.block.make_reduce(MAT2, 64, matmul, 2, "raking")
    scan = coop.block.make_exclusive_scan(MAT2, 64, matmul, 2, initial_value=(1, 0, 0, 1), algorithm="warp_scans")
    wred = coop.warp.make_reduce(MAT2, matmul, 8)
    wscan = coop.warp.make_inclusive_scan(MAT2, matmul, 7)
    store = coop.block.make_store(MAT2, 64, 2, "striped")
    code = red.name.split("_")[-4]
    assert code.startswith("rec") and len(code) == 15, red.name
    assert load.name == f"block_load_{code}_t64_i2_warp_transpose"
    assert red.temp_storage_bytes > 0 and red.temp_storage_alignment >= MAT2.alignment

    def k(d_in, d_out):
        items = coop.local.array(2, R)
        res = coop.local.array(2, R)
        load(d_in[cuda.blockIdx.x * 128:], items)
        agg = red(items)
        scan(items, res)
        t = cuda.threadIdx.x
        w = wred(res[0])
        if (t % 32) // 7 < 4:
            res[1] = wscan(items[1])
        res[0].a = agg.a + w.d
        store(d_out[cuda.blockIdx.x * 128:], res)
    out = compile_and_link(k, (R[::1], R[::1]))
    assert_inlined(out)
    names = sorted(c.name for c in out["linkables"])
    assert sum(n.startswith("py_matmul_") for n in names) == 1, names


def test_record_errors(device_functions_without_gpu):
    def add(a, b):
        return a
    with pytest.raises(ValueError) as e:
        coop.block.make_reduce(MAT2, 64, add, 1)
    assert str(e.value).startswith("binary_op='add' takes 2 arguments; for dtype=Record(") and \
        str(e.value).endswith("an operator is op(a, b, out), writing a op b into the record out")
    with pytest.raises(ValueError) as e:
        coop.block.make_reduce(MAT2, 64, "sum", 1)
    assert "cooplink has no arithmetic on a record; give a Python function op(a, b, out)" in str(e.value)
    with pytest.raises(ValueError) as e:
        coop.warp.make_exclusive_scan(MAT2, matmul, 8, initial_value=(1, 2))
    assert str(e.value).startswith("initial_value=(1, 2) is not a record of Record("), str(e.value)
    wr = coop.warp.make_reduce(MAT2, matmul, 8)

    def k(d_in, d_out):
        d_out[0] = wr(d_in[0])  # a float where the record goes
    text = _typing_error(k, (F, F))
    assert "must be a scalar of Record(" in text and "got float32" in text, text


def test_warp_load_store_exchange():
    """Warp load, store and exchange, factories and calls with no factory: compiled, linked, inlined."""
    ld = coop.warp.make_load(np.float32, 4, 8, "transpose")
    ex = coop.warp.make_exchange(coop.warp.WarpExchangeType.ScatterToStriped, np.float32, 4, 8)
    sh = coop.warp.make_exchange("blocked_to_striped", np.float32, 4, 4, algorithm="shuffle")
    st = coop.warp.make_store(np.float32, 4, 8, "striped")
    assert ld.name == "warp_load_f32_w8_i4_transpose" and ld.temp_storage_bytes > 0
    assert sh.name == "warp_exchange_blocked_to_striped_f32_w4_i4_shuffle" and sh.temp_storage_bytes == 0

    def k(d_in, d_out):
        a = coop.local.array(4, numba.float32)
        b = coop.local.array(4, numba.float32)
        r = coop.local.array(4, numba.int32)
        t = cuda.threadIdx.x
        w = t // 8
        ld(d_in[w * 32:], a)
        for i in range(4):
            r[i] = 31 - ((t % 8) * 4 + i)
        ex(a, b, r)
        coop.warp.exchange(b, a, exchange_type="striped_to_blocked", threads_in_warp=8)
        coop.warp.load(d_in[4096 + w * 32:], b, 20, numba.float32(-1), threads_in_warp=8, algorithm="vectorize")
        for i in range(4):
            a[i] += b[i]
        st(d_out[w * 32:], a)
        coop.warp.store(d_out[4096 + w * 32:], a, 9, threads_in_warp=8)
    assert_inlined(compile_and_link(k, (F, F)))


def test_warp_load_store_exchange_errors():
    with pytest.raises(ValueError) as e:
        coop.warp.make_load(np.float32, 4, 12)
    assert str(e.value) == "threads_in_warp=12: CUB's warp load needs a power of two (1, 2, 4, 8, 16 or 32)"
    with pytest.raises(ValueError) as e:
        coop.warp.make_exchange("blocked_to_striped", np.float32, 4, 8, algorithm="shuffle")
    assert str(e.value) == ("algorithm='shuffle': CUB's shuffle exchange needs items_per_thread == threads_in_warp, "
                            "got 4 and 8")
    with pytest.raises(ValueError) as e:
        coop.warp.make_exchange("rotate", np.float32, 4, 8)
    assert str(e.value).startswith("exchange_type='rotate': use WarpExchangeType or one of")
    ex = coop.warp.make_exchange("scatter_to_striped", np.float32, 2, 8)

    def k(d_in, d_out):
        a = coop.local.array(2, numba.float32)
        r = coop.local.array(2, numba.float32)  # ranks must be int32
        ex(a, a, r)
    text = _typing_error(k)
    assert "argument 'ranks' must hold int32, got an array of float32" in text, text


KV = np.dtype([("key", np.int32), ("tag", np.int32)], align=True)


def by_key(a, b):
    """A record comparator: by the field key, ascending."""
    return a.key < b.key


def test_warp_merge_sort(device_functions_without_gpu):
    """cuda.coop's make_merge_sort_keys and cooplink's make_merge_sort_pairs and merge_sort call: CUB's
    orderings and Python comparators (a record's field), guarded: compiled, linked, inlined."""
    sk = coop.warp.make_merge_sort_keys(np.float32, 4, "<", 16)
    sp = coop.warp.make_merge_sort_pairs(KV, np.uint32, 2, by_key, 8)
    assert sk.name == "warp_merge_sort_keys_less_f32_w16_i4"
    assert sp.name.startswith("warp_merge_sort_pairs_custom_py_by_key_") and sp.name.endswith("_u32_w8_i2"), sp.name
    R = numba.from_dtype(KV)
    desc = cuda.jit(device=True)(lambda a, b: a > b)

    def k(d_in, d_kv, d_out):
        t = cuda.threadIdx.x
        a = coop.local.array(4, numba.float32)
        for i in range(4):
            a[i] = d_in[t * 4 + i]
        sk(a)
        sk(a, 40, numba.float32(1e30))
        coop.warp.merge_sort(a, compare_op=desc, threads_in_warp=16)
        x = coop.local.array(2, R)
        v = coop.local.array(2, numba.uint32)
        for i in range(2):
            x[i] = d_kv[t * 2 + i]
            v[i] = t * 2 + i
        sp(x, v)
        for i in range(2):
            d_kv[t * 2 + i] = x[i]
            d_out[t * 4 + i] = a[i] + v[i]
    out = compile_and_link(k, (F, R[::1], F))
    assert_inlined(out)


def test_warp_merge_sort_errors():
    with pytest.raises(ValueError) as e:
        coop.warp.make_merge_sort_keys(np.float32, 4, "sum")
    assert str(e.value).startswith("compare_op='sum': use 'less', 'greater'")
    with pytest.raises(ValueError) as e:
        coop.warp.make_merge_sort_keys(np.float32, 4, "<", 12)
    assert str(e.value) == "threads_in_warp=12: CUB's warp merge sort needs a power of two (1, 2, 4, 8, 16 or 32)"
    with pytest.raises(ValueError) as e:
        coop.warp.make_merge_sort_keys(KV, 2, "<")
    assert "cooplink has no order on a record" in str(e.value)
    with pytest.raises(ValueError) as e:
        coop.warp.make_merge_sort_keys(np.int32, 2, lambda a, b, c: a)
    assert "takes 3 arguments" in str(e.value) and "cmp(a, b), true when a goes before b" in str(e.value)


def test_warp_auto_temps_do_not_overlap(device_functions_without_gpu):
    """Warp primitives given no temp storage and needing slots of different sizes get one shared array per
    slot size: logical warps do not wait for each other, so one array with both strides would overlap."""
    a16 = coop.warp.make_merge_sort_keys(np.int32, 1, "<", 16)
    b16 = coop.warp.make_merge_sort_pairs(np.int32, np.float64, 3, ">", 16)
    assert a16.temp_storage_bytes != b16.temp_storage_bytes

    def k(d_in, d_out):
        t = cuda.threadIdx.x
        a = coop.local.array(1, numba.int32)
        x = coop.local.array(3, numba.int32)
        v = coop.local.array(3, numba.float64)
        a[0] = numba.int32(d_in[t])
        for i in range(3):
            x[i] = numba.int32(d_in[t * 3 + i])
            v[i] = d_in[t * 3 + i]
        a16(a)
        b16(x, v)
        d_out[t] = a[0] + x[0] + v[0]
    ptx = compile_and_link(k, (F, F))["ptx"]
    names = {f"_coop_warp_temp_{a16.temp_storage_bytes}", f"_coop_warp_temp_{b16.temp_storage_bytes}"}
    assert all(f".shared .align 16 .b8 {n}[" in ptx for n in names), [l for l in ptx.splitlines() if ".shared" in l]


def test_block_exchange_merge_sort(device_functions_without_gpu):
    """cuda.coop's make_exchange (every BlockExchangeType, time slicing, in place with one array) and
    make_merge_sort_keys, cooplink's make_merge_sort_pairs and the exchange and merge_sort calls, on a 3-D
    block: compiled, linked, inlined."""
    B = (8, 4, 2)
    s2b = coop.block.make_exchange(coop.block.BlockExchangeType.StripedToBlocked, np.float32, B, 4)
    ts = coop.block.make_exchange(coop.block.BlockExchangeType.ScatterToBlocked, np.float32, B, 4,
                                  warp_time_slicing=True)
    fl = coop.block.make_exchange("scatter_to_striped_flagged", np.float32, B, 4)
    sk = coop.block.make_merge_sort_keys(np.float32, B, 4, "<")
    sp = coop.block.make_merge_sort_pairs(KV, np.uint32, B, 2, by_key)
    assert s2b.name == "block_exchange_striped_to_blocked_f32_t8x4x2_i4_smem"
    assert ts.name == "block_exchange_scatter_to_blocked_f32_t8x4x2_i4_smem_ts"
    assert sk.name == "block_merge_sort_keys_less_f32_t8x4x2_i4" and sk.temp_storage_bytes > 0
    assert sp.name.startswith("block_merge_sort_pairs_custom_py_by_key_") and sp.name.endswith("_u32_t8x4x2_i2")
    R = numba.from_dtype(KV)

    def k(d_in, d_kv, d_out):
        t = cuda.threadIdx.x + 8 * (cuda.threadIdx.y + 4 * cuda.threadIdx.z)
        a = coop.local.array(4, numba.float32)
        b = coop.local.array(4, numba.float32)
        r = coop.local.array(4, numba.int32)
        f = coop.local.array(4, numba.int32)
        for i in range(4):
            a[i] = d_in[t + 64 * i]
            r[i] = 255 - (t * 4 + i)
            f[i] = i != 2
        s2b(a)  # in place
        cuda.syncthreads()
        ts(a, b, r)
        cuda.syncthreads()
        fl(b, a, r, f)
        cuda.syncthreads()
        coop.block.exchange(a, b, exchange_type="blocked_to_warp_striped", threads=(8, 4, 2))
        cuda.syncthreads()
        coop.block.exchange(b, a, r, exchange_type="scatter_to_striped_guarded", threads=(8, 4, 2))
        cuda.syncthreads()
        sk(a)
        cuda.syncthreads()
        sk(a, 200, numba.float32(1e30))
        cuda.syncthreads()
        coop.block.merge_sort(a, compare_op=">", threads=(8, 4, 2))
        x = coop.local.array(2, R)
        v = coop.local.array(2, numba.uint32)
        for i in range(2):
            x[i] = d_kv[t * 2 + i]
            v[i] = t * 2 + i
        cuda.syncthreads()
        sp(x, v)
        for i in range(2):
            d_kv[t * 2 + i] = x[i]
            d_out[t * 4 + i] = a[i] + v[i]
    assert_inlined(compile_and_link(k, (F, R[::1], F)))


def test_block_exchange_merge_sort_errors():
    with pytest.raises(ValueError) as e:
        coop.block.make_merge_sort_keys(np.float32, 96, 2, "<")
    assert str(e.value) == ("threads_per_block=(96, 1, 1): CUB's block merge sort needs a power-of-two thread count, "
                            "got 96")
    with pytest.raises(ValueError) as e:
        coop.block.make_exchange("rotate", np.float32, 64, 2)
    assert str(e.value).startswith("block_exchange_type='rotate': use BlockExchangeType or one of striped_to_blocked")
    # refused by the generator, which says why
    with pytest.raises(Exception) as e:
        coop.block.make_exchange(coop.block.BlockExchangeType.ScatterToStripedGuarded, np.float32, 64, 2,
                                 warp_time_slicing=True).temp_storage_bytes
    assert "CUB's guarded and flagged scatters ignore time slicing" in str(e.value), str(e.value)
    with pytest.raises(Exception) as e:
        coop.block.make_exchange("warp_striped_to_blocked", np.float32, 65, 2).temp_storage_bytes
    assert "partial last warp" in str(e.value), str(e.value)


def test_block_discontinuity_adjacent_difference_shuffle(device_functions_without_gpu):
    """make_discontinuity, make_adjacent_difference, make_shuffle and their calls with no factory (flag ops
    by name and as a Python function, predecessor and successor by keyword, partial tiles, suffix): compiled,
    linked, inlined."""
    B = (32, 3)
    heads = coop.block.make_discontinuity(np.int32, B, 3)
    both = coop.block.make_discontinuity(np.int32, B, 3, flag_op=lambda a, b: b - a > 2, mode="heads_tails")
    left = coop.block.make_adjacent_difference(np.int32, B, 3)
    up = coop.block.make_shuffle(np.int32, B, 3, "up")
    rot = coop.block.make_shuffle(np.int32, B, 1, "rotate")
    assert heads.name == "block_discontinuity_heads_ne_i32_t32x3x1_i3"
    assert both.name.startswith("block_discontinuity_heads_tails_custom_py_lambda_")
    assert left.name == "block_adjacent_difference_left_sub_i32_t32x3x1_i3" and rot.name == "block_shuffle_rotate_i32_t32x3x1_i1"

    def k(d_in, d_out, n):
        t = cuda.threadIdx.x + 32 * cuda.threadIdx.y
        a = coop.local.array(3, numba.int32)
        b = coop.local.array(3, numba.int32)
        h = coop.local.array(3, numba.int32)
        f = coop.local.array(3, numba.int32)
        s = coop.local.array(1, numba.int32)
        o = coop.local.array(1, numba.int32)
        for i in range(3):
            a[i] = d_in[t * 3 + i]
        heads(h, a)
        cuda.syncthreads()
        heads(h, a, numba.int32(7))
        cuda.syncthreads()
        both(h, f, a, tile_successor=numba.int32(9))
        cuda.syncthreads()
        coop.block.flag_tails(f, a, numba.int32(1), flag_op="<", threads=B)
        cuda.syncthreads()
        left(a, b, n)
        cuda.syncthreads()
        left(a, b, tile_predecessor=numba.int32(3))
        cuda.syncthreads()
        coop.block.subtract_right(b, a, threads=B)
        cuda.syncthreads()
        up(a, b, block_suffix=s)
        cuda.syncthreads()
        coop.block.shuffle(a, b, mode="down", threads=B)
        cuda.syncthreads()
        o[0] = 0
        o[0] = rot(b[0], n)  # (rotate returns the item; offset writes an array, unchanged past the block)
        cuda.syncthreads()
        coop.block.shuffle(b[1], o, n, mode="offset", threads=B)
        for i in range(3):
            d_out[t * 3 + i] = b[i] + h[i] + f[i] + s[0] + o[0]
    assert_inlined(compile_and_link(k, (types.int32[::1], types.int32[::1], types.int32)))


def test_block_discontinuity_adjacent_difference_shuffle_errors():
    with pytest.raises(ValueError) as e:
        coop.block.make_discontinuity(np.int32, 64, 2, flag_op="sum")
    assert str(e.value).startswith("flag_op='sum': use 'ne', 'eq', 'less', 'greater'")
    with pytest.raises(ValueError) as e:
        coop.block.make_discontinuity(np.int32, 64, 2, mode="middles")
    assert str(e.value) == "mode='middles': use one of heads, tails, heads_tails"
    with pytest.raises(ValueError) as e:
        coop.block.make_adjacent_difference(np.float32, 64, 2, difference_op="max")
    assert str(e.value).startswith("difference_op='max': use 'sub'")
    with pytest.raises(ValueError) as e:
        coop.block.make_shuffle(np.float32, 64, 2, mode="sideways")
    assert str(e.value) == "mode='sideways': use one of offset, rotate, up, down"


def test_block_radix_sort():
    """cuda.coop's make_radix_sort_keys and make_radix_sort_keys_descending, cooplink's make_radix_sort_pairs
    and the radix_sort call: the bit range given or left to every bit; compiled, linked, inlined."""
    asc = coop.block.make_radix_sort_keys(np.uint32, 128, 4)
    desc = coop.block.make_radix_sort_keys_descending(np.float32, 128, 4, radix_bits=5, striped=True)
    pairs = coop.block.make_radix_sort_pairs(np.int64, np.float64, 128, 2, descending=True)
    assert asc.name == "block_radix_sort_keys_asc_u32_t128_i4_r4" and asc.temp_storage_bytes > 0
    assert desc.name == "block_radix_sort_keys_desc_striped_f32_t128_i4_r5"
    assert pairs.name == "block_radix_sort_pairs_desc_i64_f64_t128_i2_r4"

    def k(d_in, d_f, d_out, b, e):
        t = cuda.threadIdx.x
        a = coop.local.array(4, numba.uint32)
        x = coop.local.array(4, numba.float32)
        kk = coop.local.array(2, numba.int64)
        v = coop.local.array(2, numba.float64)
        for i in range(4):
            a[i] = d_in[t * 4 + i]
            x[i] = d_f[t * 4 + i]
        for i in range(2):
            kk[i] = d_in[t * 2 + i]
            v[i] = d_f[t * 2 + i]
        asc(a)
        cuda.syncthreads()
        asc(a, b, e)
        cuda.syncthreads()
        desc(x)
        cuda.syncthreads()
        pairs(kk, v)
        cuda.syncthreads()
        coop.block.radix_sort(a, 0, 16, descending=True, threads=128)
        for i in range(4):
            d_out[t * 4 + i] = a[i] + x[i] + kk[i % 2] + v[i % 2]
    assert_inlined(compile_and_link(k, (types.uint32[::1], F, F, types.int32, types.int32)))


def test_block_radix_sort_errors():
    KVd = np.dtype([("key", np.int32), ("tag", np.int32)], align=True)
    with pytest.raises(ValueError) as e:
        coop.block.make_radix_sort_keys(KVd, 64, 2)
    assert "CUB's radix sort takes a record as keys only with a decomposer" in str(e.value)
    with pytest.raises(ValueError) as e:
        coop.block.make_radix_sort_keys(np.uint32, 64, 2, radix_bits=9)
    assert str(e.value) == "radix_bits=9: give an int from 1 to 8"


def test_block_histogram_run_length_decode():
    """make_histogram (sort and atomic, init and composite), make_run_length_decode (the total returned; with
    offsets) and their calls: compiled, linked, inlined."""
    h = coop.block.make_histogram(np.uint8, 128, 4, 256)
    ha = coop.block.make_histogram(np.uint8, 128, 4, 256, algorithm="atomic", init=False)
    rld = coop.block.make_run_length_decode(np.float32, 128, 2, 4)
    assert h.name == "block_histogram_init_composite_u8_t128_i4_sort_b256"
    assert ha.name == "block_histogram_composite_u8_t128_i4_atomic_b256" and ha.temp_storage_bytes == 0
    assert rld.name == "block_run_length_decode_f32_t128_i2_d4"

    def k(d_in, d_f, d_out, n):
        t = cuda.threadIdx.x
        hist = coop.shared.array(256, numba.uint32)
        a = coop.local.array(4, numba.uint8)
        v = coop.local.array(2, numba.float32)
        ln = coop.local.array(2, numba.uint32)
        d = coop.local.array(4, numba.float32)
        o = coop.local.array(4, numba.uint32)
        for i in range(4):
            a[i] = d_in[t * 4 + i]
        h(a, hist)
        cuda.syncthreads()
        ha(a, hist)
        cuda.syncthreads()
        coop.block.histogram(a, hist, algorithm="atomic", init=False, threads=128)
        cuda.syncthreads()
        for i in range(2):
            v[i] = d_f[t * 2 + i]
            ln[i] = a[i] % 5
        total = rld(v, ln, d, n)
        cuda.syncthreads()
        total2 = coop.block.run_length_decode(v, ln, d, o, n, threads=128)
        for i in range(4):
            d_out[t * 4 + i] = hist[t] + d[i] + o[i] + total + total2
    assert_inlined(compile_and_link(k, (types.uint8[::1], F, F, types.int32)))
    with pytest.raises(ValueError) as e:
        coop.block.make_histogram(np.float32, 64, 2, 16)
    assert str(e.value) == "dtype=float32: a histogram's items are bin numbers, an integer type"


def test_block_radix_rank():
    """make_radix_rank and the radix_rank call: compiled, linked, inlined."""
    rk = coop.block.make_radix_rank(np.uint16, (32, 2), 3, radix_bits=5, descending=True)
    assert rk.name == "block_radix_rank_desc_u16_t32x2x1_i3_r5"

    def k(d_in, d_out, b):
        t = cuda.threadIdx.x + 32 * cuda.threadIdx.y
        a = coop.local.array(3, numba.uint16)
        r = coop.local.array(3, numba.int32)
        for i in range(3):
            a[i] = d_in[t * 3 + i]
        rk(a, r, b)
        cuda.syncthreads()
        coop.block.radix_rank(a, r, 0, radix_bits=8, threads=(32, 2))
        for i in range(3):
            d_out[t * 3 + i] = r[i]
    assert_inlined(compile_and_link(k, (types.uint16[::1], types.int32[::1], types.int32)))
