"""Segmented exclusive sum over 1 GiB on the GPU: cooplink's BlockLoad + BlockScan (running prefix) +
BlockStore kernels, a block a segment (one tile in flight a block, and two, chosen when a block per segment
cannot fill the GPU) and sc_chain (a block a tile of the whole array, the tiles chained by a look-back: chosen
for short segments), each against the same kernel compiled as one program, cub::DeviceScan::ExclusiveSum over
the whole array, and the copy ceiling (every 16-byte vector read and written once), in one run.

Inputs: .gpubench/scan-<type>/{cooplink,whole,nvcc}.cubin and .gpubench/cub_baselines.so, made here by
bench/segreduce/prepare.sh. Data and checking as bench/segreduce/bench.py: multiples of 1/8 (integers
for int32), so every prefix is exact; outputs poisoned, compared for equality with a float64/int64 host
reference before timing. Bytes counted: input, offsets and output (the copy ceiling: input and output).

    python3 bench/scan/scan.py --gpubench .gpubench --out DIR [--rounds 5] [--types f32,f64,i32]   (GPU)
    python3 bench/scan/scan.py --report bench/results/scan/scan.json    (here: writes scan.md beside it)
"""
import argparse
import ctypes
import itertools
import json
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "segreduce"))
from bench import THREADS, TYPES, Runner, add_l2_argument, gpu_facts, lengths_for, make_input  # noqa: E402

LENGTHS = ["128", "1024", "4096", "65536", "1M", "random"]
# the builds beside the default (one tile of two 16-byte vectors a thread in flight a block): .gpubench/scan-<type>-<v>,
# bench/segreduce/prepare.sh; d2: two such tiles in flight, c<K>: sc_block on clusters of K blocks a segment
VARIANTS = {"d2": "two tiles", "c2": "a cluster of 2 a segment", "c4": "a cluster of 4 a segment"}
# (one tile of 4 or 8 vectors, 2026-12-04, and two of 4, 2026-12-06: slower everywhere, bench/scan/scan.cu's header)
CLUSTER = {"c2": 2, "c4": 4}  # (SC_CLUSTER: blocks a segment, the grid segments x that)
MAX_CLUSTER_GRID = 1 << 24  # (a cluster build's grid of 2^25 blocks, c4 with 32 items a segment, fails with
# CUDA_ERROR_LAUNCH_FAILED on the H100, 2^24 (c2 at 32, c4 at 64) runs and checks: bench/scan/explore_cluster.sh)
WIDE = "d2"  # the build the launcher takes when a block per segment cannot fill the GPU (fewer segments than 8 an SM)
CHAIN_VARIANTS = {"fast": "chain, one read a look-back", "wide": "chain, 128 tiles a look-back step",
                  "wide6": "wide, 6 blocks an SM", "wide6d": "wide6, sleeps 1140 / 688 ns",
                  "wide6s": "wide6, sleeps 350 / 350 ns", "wided": "wide, sleeps 1140 / 688 ns",
                  "wide6t": "wide6, BlockLoad / BlockStore warp_transpose", "widet": "wide, warp_transpose"}
# sc_chain's explore builds, .gpubench/scan-<type>-<v> (bench/scan/scan.cu SC_CHAIN_FAST, SC_CHAIN_MINB, SC_LB_WAIT0,
# SC_LB_WAIT, SC_CHAIN_IO), timed as "<build> chain scan <v>" (wide2, tiles of two vectors a thread: slower
# everywhere, H100 2026-12-07, bench/results/scan/h100/s40_scan_f32_wide.json)
CHAIN_MAX_MEAN_BYTES = 8192  # sc_chain for mean segments shorter than this, a block per segment's tile (H100, f32:
# 128 items 0.749 against the block per segment's 0.238, 1024 0.780 / 0.547, random lengths of mean 2000 0.543 /
# 0.509, 4096 0.784 / 0.979; f64: 1024 items 0.680 / 0.978, random 0.455 / 0.867; bench/results/scan/h100/
# s42_scan_all.json; 16384 before, which gave float64's 1024 items to the chain)
CLUSTER_MIN_MEAN_BYTES = 65536  # sc_block on clusters (CLUSTER) for mean segments this long or longer (H100,
# share of the copy ceiling, block / c2: f32 8192 items 0.970 / 0.863, 16384 0.959 / 0.970, 65536 0.942 / 0.990;
# bench/results/scan/h100/s42_*.json)
CLUSTER_BLOCKS_PER_SM = 6  # (the cluster builds' blocks an SM: 40 to 48 registers, 256 threads)


CHAIN_4B = "widet"  # the chain build the launcher takes for 4-byte types (H100, f32, widet / the default chain:
# 128 items 0.907 / 0.751, 1024 0.903 / 0.785, random 0.654 / 0.542, 1M 0.673 / 0.485; bench/results/scan/h100/
# s42_scan_f32_explore.json; int32 not measured with it yet; float64 has no packed words: the default)


def explore_skip():
    """A --skip pattern for the chain's explore builds the launcher passes over (CHAIN_VARIANTS but CHAIN_4B)."""
    return "chain scan (" + "|".join(sorted(set(CHAIN_VARIANTS) - {CHAIN_4B})) + ")$"


def choose(n, n_seg, itemsize, sm_count):
    """The kernel the launcher takes: its label in a configuration's kernels."""
    chain = "cooplink chain scan" + (f" {CHAIN_4B}" if itemsize == 4 else "")
    if n * itemsize < CHAIN_MAX_MEAN_BYTES * n_seg:
        return chain
    if n * itemsize < CLUSTER_MIN_MEAN_BYTES * n_seg:
        return f"cooplink block scan {WIDE}" if n_seg < sm_count * 8 else "cooplink block scan"
    # a cluster a segment, of 4 where that still fits the GPU at once, else of 2 (H100, f32 1M, 256 segments: c2 0.942,
    # c4 0.873; f64 1M, 128: c2 0.736, c4 0.923; f32 4M, 64: c4 0.709, chain 0.483); under one block an SM with 4, the
    # chain (f32 16M, 16 segments: c4 0.255, chain 0.483)
    if n_seg * 4 < sm_count:
        return chain
    return "cooplink block scan c4" if n_seg * 4 <= sm_count * CLUSTER_BLOCKS_PER_SM else "cooplink block scan c2"


def ratio_key(label):
    """A kernel's label -> its cooplink / whole program ratio's name, e.g. cooplink chain scan -> cooplink chain."""
    return label.replace(" block scan", "").replace(" scan", "")


def run_config(cp, mods, cub, tc, dist, d_x, x64, rounds, rng, sm_count, only=None, skip=None):
    dtype, _ = TYPES[tc]
    size = np.dtype(dtype).itemsize
    n = d_x.size
    lens = lengths_for(dist, n, rng)
    n_seg = lens.size
    offs = np.zeros(n_seg + 1, np.int64)
    np.cumsum(lens, out=offs[1:])
    c = np.zeros(n + 1, x64.dtype)
    np.cumsum(x64, out=c[1:])
    ref = (c[:-1] - np.repeat(c[offs[:-1]], lens)).astype(dtype)  # exclusive prefix within each segment
    d_off = cp.asarray(offs.astype(np.int32))
    d_out = cp.empty(n, dtype)
    R = Runner(cp, ref, np.nan if dtype != np.int32 else np.int32(0x5A5A5A5A))
    if skip:  # (--skip: the kernels whose labels match are left out)
        add0 = R.add
        R.add = lambda label, *a, **k: None if re.search(skip, label) else add0(label, *a, **k)
    if only:  # (--only: the kernels whose labels match alone, each run once and checked, for ncu)
        add = R.add
        R.add = lambda label, *a, **k: add(label, *a, **k) if re.search(only, label) else None
    bytes_ = 2 * n * size + (n_seg + 1) * 4
    cb = mods["cooplink"].get_function("copy_bw")
    n_vec = np.int64(n * size // 16)
    sink = cp.empty_like(d_x)
    for g in (8, 16, 32):
        R.add(f"copy ceiling x{g}", (lambda g: lambda: cb((sm_count * g,), (THREADS,), (d_x, sink, n_vec)))(g),
              None, 2 * n * size, check=False)
    for build in ("cooplink", "whole", "nvcc"):
        for suffix in [""] + [" " + v for v in VARIANTS]:
            if build + suffix not in mods:
                continue
            f = mods[build + suffix].get_function("sc_block")
            g = n_seg * CLUSTER.get(suffix.strip(), 1)
            if g > MAX_CLUSTER_GRID and suffix.strip() in CLUSTER:
                continue
            R.add(f"{build} block scan{suffix}",
                  (lambda f, g: lambda: f((g,), (THREADS,), (d_x, d_off, d_out)))(f, g), d_out,
                  bytes_, {"regs": f.num_regs, "local": f.local_size_bytes})
    # sc_chain (the default builds): a block a tile of the whole array, chained by a look-back through `status`
    # (zero once; each launch passes the next epoch) and `vals`
    # (a build's words of its own: an explore build may lay them out otherwise)
    for suffix in [""] + [" " + v for v in CHAIN_VARIANTS]:
        n_tiles = -(-n // (THREADS * 4 * (16 // size)))  # (tiles of four vectors a thread)
        status, vals = cp.zeros(n_tiles, cp.uint32), cp.zeros(2 * n_tiles + 8, dtype)  # (+ 8: a wide window's reads)
        epoch = itertools.count(1)
        for build in ("cooplink", "whole", "nvcc"):
            if build + suffix not in mods:
                continue
            f = mods[build + suffix].get_function("sc_chain")
            R.add(f"{build} chain scan{suffix}",
                  (lambda f, status, vals, epoch: lambda: f((n_tiles,), (THREADS,), (
                      d_x, d_off, d_out, np.int32(n_seg), status, vals, np.uint32(next(epoch)))))(
                          f, status, vals, epoch),
                  d_out, bytes_, {"regs": f.num_regs, "local": f.local_size_bytes})
    if only:
        R.time(0)
        return {"type": tc, "lengths": dist, "segments": int(n_seg), "kernels": R.info}
    # cub::DeviceScan over the whole array: not segmented, so it is timed, not checked against ref
    fn = getattr(cub, f"cub_scan_exclusive_sum_{tc}")
    tb = ctypes.c_size_t(0)
    args = lambda t: (ctypes.c_void_p(t), ctypes.byref(tb), ctypes.c_void_p(d_x.data.ptr),
                      ctypes.c_void_p(d_out.data.ptr), ctypes.c_int(n), ctypes.c_void_p(0))
    assert fn(*args(0)) == 0
    temp = cp.empty(max(1, tb.value), cp.uint8)

    def cub_launch():
        e = fn(*args(temp.data.ptr))
        if e:
            raise RuntimeError(f"cub::DeviceScan: error {e}")
    R.add("cub::DeviceScan (whole array)", cub_launch, d_out, 2 * n * size, check=False)
    cub_launch()
    whole_ref = c[:-1].astype(dtype)
    got = cp.asnumpy(d_out)
    R.info["cub::DeviceScan (whole array)"].update(checked=int(n), wrong=int(np.count_nonzero(got != whole_ref)))
    R.time(rounds)
    ceil = max(R.info[f"copy ceiling x{g}"].get("gbs", 0) for g in (8, 16, 32))
    res = {"type": tc, "lengths": dist, "segments": int(n_seg), "bytes": int(bytes_),
           "kernels": {k: {kk: vv for kk, vv in v.items() if kk != "times"} for k, v in R.info.items()}}
    res["kernels"]["copy ceiling"] = {"gbs": ceil, "note": "the fastest of the three grids"}
    for r in res["kernels"].values():
        if "gbs" in r:
            r["share"] = r["gbs"] / ceil
    res["ratios"] = {f"cooplink / {o}": R.ratio("cooplink block scan", f"{o} block scan") for o in ("whole", "nvcc")}
    for suffix in [""] + [" " + v for v in CHAIN_VARIANTS if f"cooplink {v}" in mods]:
        res["ratios"].update({f"cooplink chain{suffix} / {o}": R.ratio(f"cooplink chain scan{suffix}",
                                                                       f"{o} chain scan{suffix}")
                              for o in ("whole", "nvcc")})
    for v in VARIANTS:
        if f"cooplink {v}" in mods:
            res["ratios"].update({f"cooplink {v} / {o}": R.ratio(f"cooplink block scan {v}", f"{o} block scan {v}")
                                  for o in ("whole", "nvcc")})
    # the launcher's choice (choose: the chain for short segments, the wide build when a block per segment cannot
    # fill the GPU)
    res["chosen"] = choose(n, n_seg, size, sm_count)
    return res


def chosen_of(res, c):
    """A configuration's kernel by today's choose() where the run timed it (runs before a rule was: their own)."""
    size = np.dtype(TYPES[c["type"]][0]).itemsize
    n = (c["bytes"] - 4 * (c["segments"] + 1)) // (2 * size)  # (the bytes: input, output and offsets)
    label = choose(n, c["segments"], size, res["gpu_before"]["sm_count"])
    return label if label in c["kernels"] else c.get("chosen", "cooplink block scan")


def report(path):
    res = json.load(open(path))
    g = res["gpu_before"]
    lines = ["# bench/scan results", "",
             f"- GPU: {g['name']}; nvidia-smi before: `{list(g.values())[0]}`, after: `{list(res['gpu_after'].values())[0]}`",
             f"- command (device tool): `bash bench/scan/run.sh` (`{res['command']}`), {res['seconds']:.0f} s; "
             "prepared by `bash bench/segreduce/prepare.sh`",
             f"- outputs poisoned and compared for equality with the host reference: "
             f"{sum(v.get('checked', 0) for c in res['configs'] for v in c['kernels'].values())} items, "
             f"{sum(v.get('wrong', 0) for c in res['configs'] for v in c['kernels'].values())} wrong",
             "- share: GB/s (input + offsets + output) over the copy ceiling measured in the same configuration", "",
             ]
    # the builds this run timed (t1024: runs of 2026-12-02, blocks of 1024 threads; d2-v4: 2026-12-06, two tiles of
    # four vectors a thread)
    seen = [v for v in list(VARIANTS) + ["t1024", "d2-v4"]
            if any(f"cooplink block scan {v}" in c["kernels"] for c in res["configs"])]
    lines += ["| type | lengths | segments | copy ceiling GB/s | **cooplink** (the choice) | one tile in flight | "
              + "".join(f"{VARIANTS.get(v, v)} | " for v in seen) + "chained tiles | "
              + "whole program | nvcc | cooplink / whole | cooplink / nvcc | registers (cooplink, whole, nvcc) | "
              "cub::DeviceScan, whole array | >= 0.85 (lengths >= 4096) |", "|" + "---|" * (14 + len(seen))]
    for c in res["configs"]:
        k = c["kernels"]
        chosen = chosen_of(res, c)
        ratio = ratio_key(chosen) + " / {}"
        s = k[chosen].get("share")
        big = c["lengths"] in ("4096", "65536", "1M")  # (random: mean 2000)
        cols = "".join(f"{k[f'cooplink block scan {v}']['share']:.3f} | " if "share" in k.get(f"cooplink block scan {v}", {})
                       else "- | " for v in seen)
        cols += f"{k['cooplink chain scan']['share']:.3f} | " if "share" in k.get("cooplink chain scan", {}) else "- | "
        lines.append(
            f"| {c['type']} | {c['lengths']} | {c['segments']} | {k['copy ceiling']['gbs']:.0f} | **{s:.3f}** | "
            f"{k['cooplink block scan'].get('share', 0):.3f} | {cols}"
            f"{k[chosen.replace('cooplink', 'whole')].get('share', 0):.3f} | "
            f"{k[chosen.replace('cooplink', 'nvcc')].get('share', 0):.3f} | "
            f"{c['ratios'][ratio.format('whole')]:.4f} | {c['ratios'][ratio.format('nvcc')]:.4f} | "
            f"{k[chosen].get('regs')}, {k[chosen.replace('cooplink', 'whole')].get('regs')}, "
            f"{k[chosen.replace('cooplink', 'nvcc')].get('regs')} | "
            f"{k['cub::DeviceScan (whole array)'].get('share', 0):.3f} | "
            f"{('yes' if s >= 0.85 else '**no**') if big else '-'} |")
    with open(os.path.join(os.path.dirname(os.path.abspath(path)), "scan.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", help="write the Markdown table from this JSON and stop")
    ap.add_argument("--gpubench", default=".gpubench")
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--types", default="f32,f64,i32")
    ap.add_argument("--lengths", default=",".join(LENGTHS))
    ap.add_argument("--only", help="a regular expression: run the kernels whose labels match it once each, checked, "
                    "and nothing else (for ncu, e.g. 'cooplink chain scan wide6$')")
    ap.add_argument("--skip", help="a regular expression: leave out the kernels whose labels match it "
                    "(e.g. 'chain scan .' for the chain's explore builds)")
    ap.add_argument("--skip-explore", action="store_true",
                    help="leave out the chain's explore builds the launcher passes over (explore_skip)")
    add_l2_argument(ap)
    args = ap.parse_args()
    Runner.l2 = args.l2
    if args.skip_explore:
        args.skip = explore_skip() + (f"|{args.skip}" if args.skip else "")
    if args.report:
        report(args.report)
        return 0
    if not args.out:
        ap.error("--out DIR is needed for a run")
    import cupy as cp
    facts = gpu_facts(cp)
    cub = ctypes.CDLL(os.path.join(args.gpubench, "cub_baselines.so"))
    results = {"command": " ".join(sys.argv), "gpu_before": facts, "configs": [], "l2": args.l2}
    rng = np.random.default_rng(20261202)
    t0 = time.time()
    for tc in args.types.split(","):
        d_x, x64 = make_input(cp, tc)
        mods = {b: cp.RawModule(path=os.path.join(args.gpubench, f"scan-{tc}", f"{b}.cubin"))
                for b in ("cooplink", "whole", "nvcc")}
        for v in list(VARIANTS) + list(CHAIN_VARIANTS):
            d = os.path.join(args.gpubench, f"scan-{tc}-{v}")
            mods.update({f"{b} {v}": cp.RawModule(path=os.path.join(d, f"{b}.cubin"))
                         for b in ("cooplink", "whole", "nvcc") if os.path.exists(os.path.join(d, f"{b}.cubin"))})
        for dist in args.lengths.split(","):
            res = run_config(cp, mods, cub, tc, dist, d_x, x64, args.rounds, rng, facts["sm_count"], args.only,
                             args.skip)
            results["configs"].append(res)
            if args.only:
                print(f"scan {tc} {dist:>6}: " + " | ".join(f"{k} wrong {v.get('wrong')}" for k, v in res["kernels"].items()))
                continue
            k = res["kernels"]
            print(f"scan {tc} {dist:>6}: copy ceiling {k['copy ceiling']['gbs']:6.0f} GB/s | cooplink "
                  f"{k['cooplink block scan'].get('share', 0):.3f} | "
                  + "".join(f"{v} {k.get('cooplink block scan ' + v, {}).get('share', 0):.3f} | " for v in VARIANTS)
                  + f"chain {k.get('cooplink chain scan', {}).get('share', 0):.3f} | "
                  + "".join(f"chain {v} {k.get('cooplink chain scan ' + v, {}).get('share', 0):.3f} | "
                            for v in CHAIN_VARIANTS)
                  + f"whole {k['whole block scan'].get('share', 0):.3f}"
                  f" | cub::DeviceScan {k['cub::DeviceScan (whole array)'].get('share', 0):.3f} | "
                  f"wrong {sum(v.get('wrong', 0) for v in k.values())}", flush=True)
        del d_x, x64, mods
    results["gpu_after"] = gpu_facts(cp)
    results["seconds"] = time.time() - t0
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "scan.json"), "w") as f:
        json.dump(results, f, indent=1)
    wrong = sum(v.get("wrong", 0) for c in results["configs"] for v in c["kernels"].values())
    print(f"{len(results['configs'])} configurations in {results['seconds']:.0f} s; wrong results: {wrong}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
