"""Tables (Markdown) and plots (PNG) from bench/segreduce/bench.py's JSON.

    python3 bench/segreduce/report.py bench/results/segreduce/segreduce.json [more runs]  # writes beside it:
        segreduce.md, segreduce_f32.png, segreduce_all.png
"""
import json
import os
import statistics
import sys

LENGTHS = ["32", "128", "1024", "8192", "65536", "1M", "random", "heavy"]
# issue 10's targets for float32: share of the read ceiling for cooplink's adaptive launcher
TARGET = {"32": 0.80, "128": 0.97, "1024": 0.97, "8192": 0.97, "65536": 0.97, "1M": 0.97, "random": 0.95,
          "heavy": 0.90}
FIXED = ["block", "run", "warp4", "warp8", "warp16", "warp32", "warp4u", "warp8u", "warp16u", "warp32u"]
BASELINES = ["cub::DeviceSegmentedReduce", "torch.segment_reduce", "talk's shared-memory tree"]


def share(c, label):
    return c["kernels"].get(label, {}).get("share")


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def times(a, b):
    """a / b as "1.23x", or "-" without both."""
    return f"{a / b:.2f}x" if a and b else "-"


def configs(res, tc, op):
    by = {c["lengths"]: c for c in res["configs"] if c["type"] == tc and c["op"] == op}
    return [(d, by[d]) for d in LENGTHS if d in by]


def best_fixed(c):
    cand = [(share(c, f"cooplink {k}") or 0, k) for k in FIXED]
    return max(cand)


def headline(res, lines):
    lines += ["## float32: share of the read ceiling measured in the same run", "",
              "| lengths | segments | read ceiling GB/s | **cooplink adaptive** | plan | best fixed cooplink kernel | "
              "cub::DeviceSegmentedReduce | torch.segment_reduce | talk's tree | adaptive / CUB | adaptive / torch | "
              "target | met |", "|" + "---|" * 13]
    for op in ("sum", "max"):
        for d, c in configs(res, "f32", op):
            a = share(c, "cooplink adaptive")
            b, bk = best_fixed(c)
            cub, torch = share(c, BASELINES[0]), share(c, BASELINES[1])
            lines.append(
                f"| {op} {d} | {c['segments']} | {c['kernels']['read ceiling']['gbs']:.0f} | **{fmt(a)}** | "
                f"{c['kernels']['cooplink adaptive'].get('plan', '')} | {bk} {fmt(b)} | {fmt(cub)} | {fmt(torch)} | "
                f"{fmt(share(c, BASELINES[2]))} | {times(a, cub)} | {times(a, torch)} | {TARGET[d]:.2f} | "
                f"{'yes' if a and a >= TARGET[d] else '**no**'} |")
    lines.append("")


def all_types(res, lines):
    lines += ["## Every type: cooplink adaptive against CUB and torch (share of the read ceiling)", "",
              "| type op | " + " | ".join(LENGTHS) + " |", "|---|" + "---|" * len(LENGTHS)]
    for tc in ("f32", "f64", "i32"):
        for op in ("sum", "max"):
            cs = dict(configs(res, tc, op))
            if not cs:
                continue
            cells = []
            for d in LENGTHS:
                c = cs.get(d)
                if not c:
                    cells.append("")
                    continue
                a, cub, t = share(c, "cooplink adaptive"), share(c, BASELINES[0]), share(c, BASELINES[1])
                cell = f"{fmt(a, 2)} (CUB {fmt(cub, 2)}"
                cell += f", torch {fmt(t, 2)})" if t else ")"
                if a and cub and a < cub:
                    cell = f"**{cell}**"
                cells.append(cell)
            lines.append(f"| {tc} {op} | " + " | ".join(cells) + " |")
    lines += ["", "Bold: cooplink's adaptive launcher below CUB there. torch.segment_reduce has no int32 "
              "kernel on CUDA (`NotImplementedError: \"segment_reduce_cuda\" not implemented for 'Int'`).", ""]


def every_kernel(res, lines):
    lines += ["## Every kernel (share of the read ceiling; fixed kernels take every segment length as it comes)",
              "", "`alone`: the adaptive plan's warp kernel on the launcher's grid without its queue, every segment "
              "reduced by its logical warp (where the plan defers none, the launcher's gap to it is what the "
              "one launch's tail costs).", ""]
    labels = (["cooplink adaptive", "cooplink alone"] + [f"cooplink {k}" for k in FIXED] + BASELINES +
              [f"numba {k}" for k in ("adaptive", "alone", "block", "run", "warp8", "warp16", "warp32")])
    for tc in ("f32", "f64", "i32"):
        for op in ("sum", "max"):
            cs = configs(res, tc, op)
            if not cs:
                continue
            present = [lab for lab in labels if any(lab in c["kernels"] for _, c in cs)]
            lines += [f"**{tc} {op}**", "", "| kernel | " + " | ".join(d for d, _ in cs) + " |",
                      "|---|" + "---|" * len(cs)]
            for lab in present:
                lines.append(f"| {lab} | " + " | ".join(fmt(share(c, lab)) for _, c in cs) + " |")
            lines.append("")
    explored = [(d, c) for d, c in configs(res, "f32", "sum") if any(k.startswith("plan ") for k in c["kernels"])]
    if explored:
        plans = sorted({k for _, c in explored for k in c["kernels"] if k.startswith("plan ")})
        lines += ["**Other plans of the adaptive launcher (f32 sum, `--explore`)**", "",
                  "| plan | " + " | ".join(d for d, _ in explored) + " |", "|---|" + "---|" * len(explored)]
        for p in plans:
            lines.append(f"| {p[5:]} | " + " | ".join(fmt(share(c, p)) for _, c in explored) + " |")
        lines.append("")


def zero_overhead(res, lines):
    lines += ["## Zero overhead: cooplink-linked against the same kernels compiled as one program", "",
              "`whole`: kernels.cu with the primitives' CUDA source (coopgen --print-source) in its translation "
              "unit, NVRTC + nvJitLink as cooplink's own link; `nvcc`: the same whole program through nvcc. "
              "Time ratio: median over the rounds of the per-round ratio, then the range over all 48 "
              "configurations. The target is cooplink / whole (the same compiler, NVRTC, on one program); nvcc "
              "compiles the program with another front end (its float64 max sr_warp32 spilled 16 bytes), shown "
              "beside it.", "",
              "| kernel | cooplink / whole: min .. max (median) | cooplink / nvcc: min .. max (median) | "
              "registers cooplink / whole / nvcc | local bytes cooplink / whole / nvcc | "
              "cooplink / whole within 0.99-1.01, registers equal, no local memory |", "|---|---|---|---|---|---|"]
    for k in FIXED + ["alone", "adaptive"]:
        row = [k]
        ok = True
        for other in ("whole", "nvcc"):
            v = [c["ratios"][f"cooplink {k} / {other}"] for c in res["configs"]
                 if f"cooplink {k} / {other}" in c["ratios"]]
            if v:
                ok &= other != "whole" or all(0.99 <= x <= 1.01 for x in v)  # (the target's; nvcc: beside it)
                row.append(f"{min(v):.4f} .. {max(v):.4f} ({statistics.median(v):.4f}), {len(v)} configs")
            else:
                row.append("-")
        regs = {b: sorted({c["kernels"][f"{b} {k}"].get("regs") for c in res["configs"]
                           if f"{b} {k}" in c["kernels"]} - {None}) for b in ("cooplink", "whole", "nvcc")}
        local = {b: sorted({c["kernels"][f"{b} {k}"].get("local") for c in res["configs"]
                            if f"{b} {k}" in c["kernels"]} - {None}) for b in ("cooplink", "whole", "nvcc")}
        # the same registers, cooplink-linked and whole, in every configuration; no local memory in either
        ok &= all(c["kernels"][f"cooplink {k}"].get("regs") == c["kernels"][f"whole {k}"].get("regs")
                  for c in res["configs"] if f"cooplink {k}" in c["kernels"] and f"whole {k}" in c["kernels"])
        ok &= local["cooplink"] in ([0], []) and local["whole"] in ([0], [])
        row.append(" / ".join(",".join(map(str, regs[b])) for b in ("cooplink", "whole", "nvcc")))
        row.append(" / ".join(",".join(map(str, local[b])) for b in ("cooplink", "whole", "nvcc")))
        row.append("yes" if ok else "**no**")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")


def numba_vs_c(res, lines):
    """The Numba kernels (cooplink.numba.segmented, the library function's) against the CUDA C ones."""
    if not any(k.startswith("numba ") for c in res["configs"] for k in c["kernels"]):
        return
    lines += ["## Numba (cooplink.numba) against CUDA C (cooplink-linked), same kernels", "",
              "Time ratio Numba / CUDA C: median over the rounds of the per-round ratio, then the range over the "
              "configurations; `numba adaptive` is the library function `cooplink.numba.segmented_reduce` "
              "itself (its argument checks and launch included).", "",
              "| kernel | Numba / CUDA C: min .. max (median) | registers Numba / C | Numba local bytes | "
              "within 1.02 |", "|---|---|---|---|---|"]
    for k in ("block", "run", "warp8", "warp16", "warp32", "alone", "adaptive"):
        v = [c["ratios"][f"numba {k} / cooplink"] for c in res["configs"] if f"numba {k} / cooplink" in c["ratios"]]
        if not v:
            continue
        regs = {b: sorted({c["kernels"][f"{b} {k}"].get("regs") for c in res["configs"]
                           if f"{b} {k}" in c["kernels"]} - {None}) for b in ("numba", "cooplink")}
        local = sorted({c["kernels"][f"numba {k}"].get("local") for c in res["configs"]
                        if f"numba {k}" in c["kernels"]} - {None})
        lines.append(f"| {k} | {min(v):.4f} .. {max(v):.4f} ({statistics.median(v):.4f}), {len(v)} configs | "
                     f"{','.join(map(str, regs['numba'])) or '-'} / {','.join(map(str, regs['cooplink']))} | "
                     f"{','.join(map(str, local)) or '-'} | {'yes' if max(v) <= 1.02 else '**no**'} |")
    lines.append("")


def plots(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = [("cooplink adaptive", "cooplink adaptive", "-o"), ("cooplink warp8", "cooplink warp8", ":^"),
              ("cooplink warp32", "cooplink warp32", ":v"), ("cooplink block", "cooplink block", ":s"),
              (BASELINES[0], "cub::DeviceSegmentedReduce", "--x"), (BASELINES[1], "torch.segment_reduce", "--+"),
              (BASELINES[2], "talk's shared-memory tree", "-.d"), ("numba adaptive", "Numba (cooplink.numba) adaptive", "-*")]

    def panel(ax, tc, op):
        cs = configs(res, tc, op)
        xs = list(range(len(cs)))
        for label, name, style in series:
            ys = [share(c, label) for _, c in cs]
            if any(y is not None for y in ys):
                ax.plot(xs, [y if y is not None else float("nan") for y in ys], style, label=name)
        ax.set_xticks(xs, [d for d, _ in cs])
        ax.set_ylim(0, 1.08)
        ax.axhline(1.0, color="grey", lw=0.6)
        ax.set_title(f"{tc} {op}, 1 GiB")
        ax.set_xlabel("segment length")
        ax.grid(alpha=0.3)

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for ax, op in zip(axes, ("sum", "max")):
        panel(ax, "f32", op)
    axes[0].set_ylabel("share of the read bandwidth (same run)")
    axes[1].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"Segmented reduction on {res['gpu_before']['name']}: cooplink vs CUB, torch, the talk's kernel")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "segreduce_f32.png"), dpi=110)
    fig, axes = plt.subplots(3, 2, figsize=(13, 12), sharey=True)
    for i, tc in enumerate(("f32", "f64", "i32")):
        for j, op in enumerate(("sum", "max")):
            panel(axes[i][j], tc, op)
    axes[0][1].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "segreduce_all.png"), dpi=90)


def mend_block(c):
    """Runs before 2026-12-03 timed `<build> block` as the plan's kernel (bench.py rebound the variable its
    launch called) wherever the plan was not sr_block; their checked first run was sr_block's: that one run
    is its figure there (marked untimed), and its ratios are dropped."""
    plan = c["kernels"].get("cooplink adaptive", {}).get("plan", "")
    if plan.startswith("block") or c.get("block_timed_right"):
        return
    for build in ("cooplink", "whole", "nvcc"):
        r = c["kernels"].get(f"{build} block")
        if r and "first_ms" in r and not r.get("untimed"):
            ms = min(r["first_ms"], r.get("second_ms", r["first_ms"]))
            ceil = c["kernels"]["read ceiling"]["gbs"]
            r.update(ms=ms, gbs=r["bytes"] / ms / 1e6, share=r["bytes"] / ms / 1e6 / ceil, untimed=True)
    for k in [k for k in c.get("ratios", {}) if k.startswith(("cooplink block", "numba block"))]:
        del c["ratios"][k]


TORCH = "torch.segment_reduce"


def mend_torch(c, earlier):
    """Until 2026-12-04 bench.py reported a kernel whose first run was slow from that run alone, and torch's
    first call of a run starts its library (17-87 ms): where that is a run's figure for torch (untimed, no
    second run), an earlier run's timed one of the same configuration stands in for it (marked), or none."""
    t = c["kernels"][TORCH]
    if not t.get("untimed") or "second_ms" in t:
        return
    old = (earlier or {}).get("kernels", {}).get(TORCH, {})
    if "ms" in old:  # (an earlier run's own first call was mended when that run was merged)
        c["kernels"][TORCH] = dict(old, earlier_run=True)
    else:
        c["kernels"][TORCH] = {"error": "its figure was the run's first torch call (torch starting): none"}


def merge(paths):
    """The runs' configurations, a later run's replacing an earlier one's of the same type, operator and
    lengths (a run of every type does not fit the device tool's 10 minutes a call)."""
    runs = [json.load(open(p)) for p in paths]
    by = {}
    for r in runs:
        first_torch = True
        for c in r["configs"]:
            mend_block(c)
            key = (c["type"], c["op"], c["lengths"])
            if first_torch and "error" not in c["kernels"].get(TORCH, {"error": ""}):
                first_torch = False
                mend_torch(c, by.get(key))
            by[key] = c
    return runs, dict(runs[0], configs=list(by.values()))


def run_lines(res, label):
    g = res["gpu_before"]
    return [f"- {label}GPU: {g['name']}, {g['sm_count']} SMs; CUDA runtime {g['cuda runtime']}, driver API {g['driver']}",
            f"  - nvidia-smi before: `{list(g.values())[0]}`; after: "
            f"`{list(res['gpu_after'].values())[0] if 'gpu_after' in res else '(run cut short)'}` "
            "(name, SM clock, memory clock, max SM, max memory, driver, power, temperature)",
            f"  - versions: {', '.join(f'{k} {v}' for k, v in res['versions'].items())}",
            f"  - command (GPU machine, device tool, through `bash bench/segreduce/device.sh bench`): "
            f"`{res['command']}`, {len(res['configs'])} configurations"
            + (f" in {res['seconds']:.0f} s" if "seconds" in res else " (the run was cut short after these)")]


def main():
    """report.py RUN.json [RUN.json ...]: the tables and plots beside the first file."""
    paths = sys.argv[1:]
    runs, res = merge(paths)
    outdir = os.path.dirname(os.path.abspath(paths[0]))
    lines = ["# bench/segreduce results", ""]
    for p, r in zip(paths, runs):
        lines += run_lines(r, f"`{os.path.basename(p)}`: " if len(paths) > 1 else "")
    lines += ["- prepared here with `bash bench/segreduce/prepare.sh`; this file: "
              f"`bash bench/segreduce/report.sh {' '.join(os.path.relpath(p) for p in paths)}`",
              f"- every kernel's output poisoned, then compared for equality with the float64/int64 host reference: "
              f"{sum(v.get('checked', 0) for c in res['configs'] for v in c['kernels'].values())} segment results "
              f"checked, {sum(v.get('wrong', 0) for c in res['configs'] for v in c['kernels'].values())} wrong",
              "- bytes counted: input + offsets + output; share = GB/s over the read ceiling (baselines.cu read_bw, "
              "and read_bw_cs in runs since 2026-12-07: the faster) measured beside it in the same configuration's rounds"]
    mended = [(f"{c['type']} {c['op']} {c['lengths']}", "an earlier run's" if t.get("earlier_run") else "none")
              for c in res["configs"] for t in [c["kernels"].get(TORCH, {})]
              if t.get("earlier_run") or "torch starting" in t.get("error", "")]
    if mended:
        lines.append("- torch's figure where its run's was the run's first torch call (torch starting; bench.py "
                     "before 2026-12-04): " + ", ".join(f"{k}: {v}" for k, v in mended))
    lines.append("")
    headline(res, lines)
    all_types(res, lines)
    zero_overhead(res, lines)
    numba_vs_c(res, lines)
    every_kernel(res, lines)
    with open(os.path.join(outdir, "segreduce.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    plots(res, outdir)
    print("\n".join(lines[:40]))


if __name__ == "__main__":
    main()
