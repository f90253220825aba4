"""Kernel time of the benchmark kernel (one block per 8192-float segment, tile by tile: BlockLoad vectorize
then BlockReduce sum, 256 threads x 4 items, 1 GiB of float32) written in Numba with cooplink, in Numba
with cuda.coop 1.0.2, and in CUDA C linked by `cooplink link`; the Numba kernels also with slices
`d_in[start:]` for the tiles (Numba clamps each), the C kernel also with its tile loop kept rolled
(`#pragma unroll 1`). Registers, local memory, cubin sizes (cooplink's Numba kernel also as libcooplink
links it, with -optimize-unused-variables).

Timing: after a warm-up, rounds in rotating order; in each round every kernel runs 20 times back to back
between two events, the first event queued behind one more launch of the same kernel, so that the GPU
never waits for Python to make a launch (Numba's launch path takes longer than cupy's). A kernel's figure is the median over rounds; a ratio is the median of the per-round
ratios (paired, so that the machine's drift cancels).

    python bench/python_kernel_time.py [--rounds 40] [--dump DIR]      # on the GPU (device tool)
"""

import argparse
import os
import statistics
import sys
import tempfile

SEG = 8192          # floats per segment (one block per segment)
THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS
N = 1 << 28         # 1 GiB of float32
BASE = "CUDA C"     # the ratios' denominator

C_SRC = r'''
#include <cooplink_default.h>
extern "C" __global__ void k(const float *in, float *out) {
  float items[4]; float acc = 0.f;
  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_REDUCE_SUM_F32_T256_I4_WARP_REDUCTIONS_TEMP_BYTES + 16];
  const float *base = in + (size_t)blockIdx.x * 8192;
  UNROLL
  for (int t = 0; t < 8192 / 1024; ++t) {
    coop_block_load_f32_t256_i4_vectorize(base + t * 1024, items, 0);
    float a; coop_block_reduce_sum_f32_t256_i4_warp_reductions(items, &a, temp);
    acc += a; __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}'''


def load_reduce_kernel(load, red, nbt, seg, tile, items, link=None):
    """The benchmark's kernel: one block per segment, tile by tile, BlockLoad then BlockReduce (either
    library's primitives; cooplink's .files is empty, cuda.coop's must be linked)."""
    from numba import cuda

    @cuda.jit(link=link or [])
    def k(d_in, d_out):
        items_ = cuda.local.array(items, nbt)
        acc = nbt(0)
        base = cuda.blockIdx.x * seg
        for t in range(seg // tile):
            load(d_in[base + t * tile:], items_)
            acc += red(items_)
        if cuda.threadIdx.x == 0:
            d_out[cuda.blockIdx.x] = acc
    return k


def view_kernel(load, red, nbt, link=None):
    """The same kernel over a (segments, tiles, items) view of the input: a tile is `seg[t]`, with none of
    the bounds clamping a slice `d_in[start:]` costs in Numba (SEL/ISETP per tile), as CUDA C's pointer
    arithmetic has none."""
    from numba import cuda

    @cuda.jit(link=link or [])
    def k(d_in, d_out):
        items_ = cuda.local.array(ITEMS, nbt)
        acc = nbt(0)
        seg = d_in[cuda.blockIdx.x]
        for t in range(SEG // TILE):
            load(seg[t], items_)
            acc += red(items_)
        if cuda.threadIdx.x == 0:
            d_out[cuda.blockIdx.x] = acc
    return k


def measure(rounds, dump=None):
    """{label: {ms, gbs, ratio, regs, local, cubin[, cubin_optimized]}} for every kernel."""
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    import numba
    numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    from numba import cuda
    import cupy
    import cooplink.numba as coop
    from cooplink import _lib
    n_seg = N // SEG
    x = (np.arange(N) % 5).astype(np.float32)
    d_in = cuda.to_device(x)
    d_in3 = d_in.reshape(n_seg, SEG // TILE, TILE)
    cin = cupy.asarray(x)
    want = x.reshape(n_seg, SEG).astype(np.float64).sum(axis=1)
    cc = cuda.get_current_device().compute_capability
    arch = cc[0] * 10 + cc[1]
    launchers, res = {}, {}

    def keep(label, cubin):
        res[label]["cubin"] = len(cubin)
        if dump:
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, label.replace(" ", "_").replace(",", "") + ".cubin"), "wb") as f:
                f.write(cubin)

    def add_numba(label, k, view=False):
        d_out = cuda.device_array(n_seg, np.float32)
        d_out[:] = np.nan
        arg = d_in3 if view else d_in
        k[n_seg, THREADS](arg, d_out)
        cuda.synchronize()
        assert np.allclose(d_out.copy_to_host(), want), label
        ov = next(iter(k.overloads.values()))
        res[label] = {"regs": ov.regs_per_thread, "local": ov.local_mem_per_thread}
        cubin = ov.library.get_cubin()
        keep(label, bytes(getattr(cubin, "code", cubin)))
        launchers[label] = lambda: k[n_seg, THREADS](arg, d_out)
        return k

    nbt = numba.float32
    load = coop.block.make_load(np.float32, THREADS, ITEMS, "vectorize")
    red = coop.block.make_sum(np.float32, THREADS, ITEMS)
    ck = add_numba("cooplink numba", view_kernel(load, red, nbt), view=True)
    add_numba("cooplink numba, slices", load_reduce_kernel(load, red, nbt, SEG, TILE, ITEMS))
    # the same kernel's cubin as libcooplink links it (nvJitLink -optimize-unused-variables)
    sig = next(iter(ck.overloads.keys()))
    codes, _ = cuda.compile_all(ck.py_func, tuple(sig), device=False, abi="numba", cc=cc, output="ltoir")
    res["cooplink numba"]["cubin_optimized"] = len(_lib.link([("ltoir", codes[0], "k.ltoir")], arch,
                                                             ["-cache=0"])["cubin"])
    try:
        import cuda.coop._experimental as cc_coop
        ld = cc_coop.block.make_load(nbt, THREADS, ITEMS, "vectorize")
        rd = cc_coop.block.make_sum(nbt, THREADS, ITEMS)
        add_numba("cuda.coop numba", view_kernel(ld, rd, nbt, ld.files + rd.files), view=True)
        add_numba("cuda.coop numba, slices", load_reduce_kernel(ld, rd, nbt, SEG, TILE, ITEMS, ld.files + rd.files))
    except ImportError as e:
        res["cuda.coop numba"] = {"error": str(e)}
    for label, pragma in ((BASE, ""), ("CUDA C, #pragma unroll 1", "#pragma unroll 1")):
        out = _lib.link([("cuda", C_SRC.replace("UNROLL", pragma).encode(), "k.cu")], arch, ["-cache=0"])
        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
            f.write(out["cubin"])
        fn = cupy.RawModule(path=f.name).get_function("k")
        os.unlink(f.name)
        cout = cupy.full(n_seg, cupy.nan, cupy.float32)
        fn((n_seg,), (THREADS,), (cin, cout))
        cupy.cuda.runtime.deviceSynchronize()
        assert np.allclose(cupy.asnumpy(cout), want), label
        res[label] = {"regs": fn.num_regs, "local": fn.local_size_bytes}
        keep(label, out["cubin"])
        launchers[label] = (lambda fn, cout: lambda: fn((n_seg,), (THREADS,), (cin, cout)))(fn, cout)
    for launch in launchers.values():
        for _ in range(100):
            launch()
    cuda.synchronize()
    labels = list(launchers)
    times = {label: [] for label in labels}
    for r in range(rounds):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
            launchers[label]()  # keeps the GPU busy while the first timed launch is made (no idle gap)
            e0.record()
            for _ in range(20):
                launchers[label]()
            e1.record()
            e1.synchronize()
            times[label].append(cupy.cuda.get_elapsed_time(e0, e1) / 20)
    for label, ms in times.items():
        m = statistics.median(ms)
        res[label].update(ms=m, gbs=N * 4 / m / 1e6, times=ms,
                          ratio=statistics.median(a / b for a, b in zip(ms, times[BASE])))
    return res


def table(rounds, dump=None):
    res = measure(rounds, dump)
    lines = [f"| kernel (1 GiB f32, segments of 8192, 256x4; 20 launches a round, {rounds} rounds) | ms, median | "
             f"GB/s | / {BASE}, median of the rounds | registers | local bytes | cubin bytes | cubin linked with "
             "-optimize-unused-variables |", "|---|---|---|---|---|---|---|---|"]
    for label, r in res.items():
        if "error" in r:
            lines.append(f"| {label} | {r['error']} | | | | | | |")
            continue
        lines.append(f"| {label} | {r['ms']:.4f} | {r['gbs']:.0f} | {r['ratio']:.4f} | {r['regs']} | {r['local']} | "
                     f"{r['cubin']} | {r.get('cubin_optimized', '')} |")
    c = res["cooplink numba"]
    lines += ["", f"- cooplink numba / {BASE}: {c['ratio']:.4f} (target within 0.98-1.02: "
                  f"{'met' if 0.98 <= c['ratio'] <= 1.02 else 'NOT met'})"]
    if "ms" in res.get("cuda.coop numba", {}):
        r = statistics.median(a / b for a, b in zip(c["times"], res["cuda.coop numba"]["times"]))
        lines.append(f"- cooplink numba / cuda.coop numba: {r:.4f} (target within 0.98-1.02: "
                     f"{'met' if 0.98 <= r <= 1.02 else 'NOT met'})")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--dump", help="write each kernel's cubin here")
    args = ap.parse_args()
    print(table(args.rounds, args.dump))
    return 0


if __name__ == "__main__":
    sys.exit(main())
