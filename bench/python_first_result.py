"""First-result latency and kernel time of a Numba kernel using BlockLoad + BlockReduce, three ways in
fresh processes: cooplink (prebuilt catalog), cuda.coop 1.0.2 (cuda-cccl), and the talk's plain Numba
kernel with a shared-memory tree. Also a configuration outside the catalog (first process generates,
second reuses), kernel times against the same kernel in CUDA C linked by cooplink, registers, and cubin
sizes with and without -optimize-unused-variables.

    python bench/python_first_result.py [--repeats 5] [--out bench/results/python_first_result.md]

Runs on a GPU (the device tool); every result is checked against numpy before it is timed.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SEG = 8192          # floats per segment (one block per segment)
THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS
N = 1 << 28         # 1 GiB of float32


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


def child(way, config):
    t0 = time.perf_counter()
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    import numba
    numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    from numba import cuda
    t_import = time.perf_counter()
    dtype, nbt, seg = np.float32, numba.float32, SEG
    threads, items = THREADS, ITEMS
    if config == "outside":
        dtype, nbt, threads, items = np.int32, numba.int32, 128, 2
        seg = 4096
    tile = threads * items
    n_seg = 64
    x = (np.arange(n_seg * seg) % 7).astype(dtype)
    if way in ("cooplink", "cudacoop"):
        if way == "cooplink":
            import cooplink.numba as coop
            load = coop.block.make_load(dtype, threads, items, "vectorize")
            red = coop.block.make_sum(dtype, threads, items)
        else:
            import cuda.coop._experimental as coop
            load = coop.block.make_load(nbt, threads, items, "vectorize")
            red = coop.block.make_sum(nbt, threads, items)
        k = load_reduce_kernel(load, red, nbt, seg, tile, items, link=load.files + red.files)
    else:
        @cuda.jit
        def k(d_in, d_out):
            sm = cuda.shared.array(THREADS, numba.float32)
            tid = cuda.threadIdx.x
            base = cuda.blockIdx.x * seg
            acc = numba.float32(0)
            for i in range(tid, seg, THREADS):
                acc += d_in[base + i]
            sm[tid] = acc
            cuda.syncthreads()
            s = THREADS // 2
            while s > 0:
                if tid < s:
                    sm[tid] += sm[tid + s]
                cuda.syncthreads()
                s //= 2
            if tid == 0:
                d_out[cuda.blockIdx.x] = sm[0]
    t_made = time.perf_counter()
    d_in = cuda.to_device(x)
    d_out = cuda.device_array(n_seg, dtype)
    k[n_seg, threads](d_in, d_out)
    got = d_out.copy_to_host()
    t_first = time.perf_counter()
    want = x.reshape(n_seg, seg).astype(np.float64).sum(axis=1)
    ok = bool(np.allclose(got, want))
    generated = None
    if way == "cooplink":
        from cooplink import _lib
        generated = _lib.resolve.generated
    print(json.dumps({"import": t_import - t0, "make": t_made - t_import, "first_launch": t_first - t_made,
                      "in_process": t_first - t0, "ok": ok, "generated": generated}))


def run_child(way, config, env=None):
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, __file__, "--child", way, "--config", config], capture_output=True,
                       text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{way}/{config} failed:\n{p.stderr[-3000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["wall"] = wall
    return r


def kernel_times(repeats):
    """Kernel time of cooplink Numba vs CUDA C linked by cooplink vs cuda.coop, 1 GiB, back-to-back."""
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    import numba
    numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    from numba import cuda
    import cooplink.numba as coop
    from cooplink import _lib
    n_seg = N // SEG
    x = (np.arange(N) % 5).astype(np.float32)
    d_in = cuda.to_device(x)
    want = x.reshape(n_seg, SEG).astype(np.float64).sum(axis=1)
    res = {}

    def body_factory(load, red, link=None):
        return load_reduce_kernel(load, red, numba.float32, SEG, TILE, ITEMS, link)

    launchers = {}

    def add_numba(k, label):
        d_out = cuda.device_array(n_seg, np.float32)
        d_out[:] = np.nan
        k[n_seg, THREADS](d_in, d_out)
        cuda.synchronize()
        assert np.allclose(d_out.copy_to_host(), want), label
        sig = list(k.overloads.keys())[0]
        ov = k.overloads[sig]
        cubin = ov.library.get_cubin()
        res[label] = {"regs": ov.regs_per_thread, "local": ov.local_mem_per_thread,
                      "cubin": len(getattr(cubin, "code", cubin))}
        launchers[label] = lambda: k[n_seg, THREADS](d_in, d_out)
        return k

    ck = add_numba(body_factory(coop.block.make_load(np.float32, THREADS, ITEMS, "vectorize"),
                                coop.block.make_sum(np.float32, THREADS, ITEMS)), "cooplink numba")
    # the same kernel's cubin linked by libcooplink (nvJitLink -optimize-unused-variables)
    sig = list(ck.overloads.keys())[0]
    cc = cuda.get_current_device().compute_capability
    codes, _ = cuda.compile_all(ck.py_func, tuple(sig), device=False, abi="numba", cc=cc, output="ltoir")
    linked = _lib.link([("ltoir", codes[0], "k.ltoir")], cc[0] * 10 + cc[1], ["-cache=0"])
    res["cooplink numba"]["cubin_optimized"] = len(linked["cubin"])
    try:
        import cuda.coop._experimental as cc_coop
        ld = cc_coop.block.make_load(numba.float32, THREADS, ITEMS, "vectorize")
        rd = cc_coop.block.make_sum(numba.float32, THREADS, ITEMS)
        add_numba(body_factory(ld, rd, link=ld.files + rd.files), "cuda.coop numba")
    except ImportError as e:
        res["cuda.coop numba"] = {"error": str(e)}
    # the same kernel in CUDA C, linked by cooplink (catalog symbols), launched through cupy
    import cupy
    src = r'''
#include <cooplink_default.h>
extern "C" __global__ void k(const float *in, float *out) {
  float items[4]; float acc = 0.f;
  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_REDUCE_SUM_F32_T256_I4_WARP_REDUCTIONS_TEMP_BYTES + 16];
  const float *base = in + (size_t)blockIdx.x * 8192;
  for (int t = 0; t < 8192 / 1024; ++t) {
    coop_block_load_f32_t256_i4_vectorize(base + t * 1024, items, 0);
    float a; coop_block_reduce_sum_f32_t256_i4_warp_reductions(items, &a, temp);
    acc += a; __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}'''
    out = _lib.link([("cuda", src.encode(), "k.cu")], cc[0] * 10 + cc[1], ["-cache=0", "-verbose"])
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(out["cubin"])
    mod = cupy.RawModule(path=f.name)
    fn = mod.get_function("k")
    cin = cupy.asarray(x)
    cout = cupy.full(n_seg, cupy.nan, cupy.float32)
    fn((n_seg,), (THREADS,), (cin, cout))
    cupy.cuda.runtime.deviceSynchronize()
    assert np.allclose(cupy.asnumpy(cout), want)
    res["CUDA C via cooplink link"] = {"regs": fn.num_regs, "local": fn.local_size_bytes, "cubin": len(out["cubin"])}
    launchers["CUDA C via cooplink link"] = lambda: fn((n_seg,), (THREADS,), (cin, cout))
    # interleaved rounds after a warm-up, so that clocks and caches treat every kernel alike
    for launch in launchers.values():
        for _ in range(100):
            launch()
    cuda.synchronize()
    times = {label: [] for label in launchers}
    for _ in range(repeats * 4):
        for label, launch in launchers.items():
            e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
            e0.record()
            for _ in range(20):
                launch()
            e1.record()
            e1.synchronize()
            times[label].append(cupy.cuda.get_elapsed_time(e0, e1) / 20)
    for label, ms in times.items():
        m = statistics.median(ms)
        res[label].update(ms=m, gbs=N * 4 / m / 1e6)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child")
    ap.add_argument("--config", default="incatalog")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out")
    ap.add_argument("--kernels-only", action="store_true", help="only the kernel-time table")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.config)
        return 0
    if args.kernels_only:
        kt = kernel_times(args.repeats)
        for label, r in kt.items():
            print(label, r)
        base = kt["cooplink numba"]["ms"]
        for label in ("CUDA C via cooplink link", "cuda.coop numba"):
            if "ms" in kt.get(label, {}):
                print(f"cooplink numba / {label}: {base / kt[label]['ms']:.4f}")
        return 0
    rows = {}
    for rep in range(args.repeats):
        for way in ("plain", "cooplink", "cudacoop"):
            rows.setdefault(way, []).append(run_child(way, "incatalog"))
    cache = tempfile.mkdtemp(prefix="cooplink-bench-cache-")
    env = dict(os.environ, COOPLINK_CACHE=cache)
    outside = [run_child("cooplink", "outside", env) for _ in range(2)]
    med = {w: statistics.median(r["wall"] for r in v) for w, v in rows.items()}
    lines = ["| way | process wall to first result, median of %d (s) | min | max | import | factories | first launch | "
             "checked |" % args.repeats, "|---|---|---|---|---|---|---|---|"]
    for w, v in rows.items():
        lines.append(f"| {w} | {med[w]:.3f} | {min(r['wall'] for r in v):.3f} | {max(r['wall'] for r in v):.3f} | "
                     f"{statistics.median(r['import'] for r in v):.3f} | {statistics.median(r['make'] for r in v):.3f} | "
                     f"{statistics.median(r['first_launch'] for r in v):.3f} | {all(r['ok'] for r in v)} |")
    for i, r in enumerate(outside):
        lines.append(f"| cooplink, outside the catalog, process {i + 1} (generated {r['generated']}) | "
                     f"{r['wall']:.3f} | | | {r['import']:.3f} | {r['make']:.3f} | {r['first_launch']:.3f} | {r['ok']} |")
    added_c = med["cooplink"] - med["plain"]
    added_cc = med["cudacoop"] - med["plain"]
    lines += ["", f"- cooplink adds {added_c:+.3f} s to the plain kernel (target <= 0.15 s: "
                  f"{'met' if added_c <= 0.15 else 'NOT met'})",
              f"- cuda.coop 1.0.2 adds {added_cc:+.3f} s; ratio {added_cc / max(added_c, 1e-3):.1f}x "
              f"(target >= 10x: {'met' if added_cc >= 10 * max(added_c, 0) else 'NOT met'})",
              f"- outside the catalog: second process {outside[1]['wall'] - med['plain']:+.3f} s over plain "
              f"(target <= 0.15 s: {'met' if outside[1]['wall'] - med['plain'] <= 0.15 else 'NOT met'}); "
              f"generated {outside[1]['generated']} symbols"]
    kt = kernel_times(args.repeats)
    lines += ["", "| kernel (1 GiB f32, segments of 8192, 256x4, 20 back-to-back launches, interleaved rounds, median of %d) | ms | GB/s | "
                  "registers | local bytes | cubin bytes | cubin, linked with -optimize-unused-variables |" % (args.repeats * 4),
              "|---|---|---|---|---|---|---|"]
    for label, r in kt.items():
        if "error" in r:
            lines.append(f"| {label} | {r['error']} | | | | | |")
            continue
        lines.append(f"| {label} | {r['ms']:.4f} | {r['gbs']:.0f} | {r['regs']} | {r['local']} | {r['cubin']} | "
                     f"{r.get('cubin_optimized', '')} |")
    base = kt["cooplink numba"]["ms"]
    for label in ("CUDA C via cooplink link", "cuda.coop numba"):
        if "ms" in kt.get(label, {}):
            lines.append(f"\n- cooplink numba / {label}: {base / kt[label]['ms']:.4f} (target within 0.98-1.02)")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
