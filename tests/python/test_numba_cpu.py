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
                            "'vectorize', 'transpose', 'warp_transpose', 'warp_transpose_ts', or "
                            "warp_transpose_timesliced)")
    with pytest.raises(ValueError) as e:
        coop.block.make_load(np.float32, 48, I, "warp_transpose")
    assert str(e.value) == ("algorithm='warp_transpose' needs a thread count that is a multiple of 32, got 48")
    with pytest.raises(ValueError) as e:
        coop.block.make_sum(np.float32, T, I, "fast")
    assert str(e.value).startswith("algorithm='fast' is not a block reduce algorithm (use 'raking', ")


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

    def my_op(a, b):
        return a if a > b else b
    with pytest.raises(ValueError) as e:
        coop.block.make_reduce(np.float32, T, my_op, I)
    assert str(e.value).startswith("binary_op='my_op': operators given as Python functions are not supported yet")


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
