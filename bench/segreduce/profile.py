"""Reads what `bench/segreduce/device.sh profile` brought back (ncu's raw CSV per segment length and the
bench's launch labels, in launch order) and prints a Markdown table per length: each kernel's time, DRAM
throughput (share of peak), SMs busy, achieved occupancy, atomics at L2, and its three largest stall reasons.

    python3 bench/segreduce/profile.py DIR [> bench/results/segreduce/profile_f32sum.md]
"""
import csv
import glob
import io
import os
import sys


def rows_of(path):
    """ncu's --page raw --csv rows (dicts), after its own ==PROF== lines and the units row."""
    text = open(path, encoding="utf-8", errors="replace").read()
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if len(lines) < 2:
        raise SystemExit(f"{path}: no ncu rows (the log's end: {text[-400:]!r})")
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    return rows[1:]  # (the first row under the header holds the units)


def num(row, key):
    v = row.get(key, "").replace(",", "")
    try:
        return float(v)
    except ValueError:
        return float("nan")


def table(length, rows, labels):
    if len(rows) != len(labels):
        raise SystemExit(f"{length}: {len(rows)} profiled kernels but {len(labels)} launches named")
    prefix = "smsp__warp_issue_stalled_"
    out = [f"### segment length {length}", "",
           "| kernel | grid | regs | time µs | instructions (M, warp) | DRAM % of peak | DRAM GB read | SMs busy % | "
           "occupancy % | L2 atomics | stalls, % of active warps (largest three) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for label, r in zip(labels, rows):
        stalls = sorted(((num(r, k), k[len(prefix):].replace("_per_warp_active.pct", ""))
                         for k in r if k.startswith(prefix) and k.endswith("_per_warp_active.pct")
                         and "not_issued" not in k and "selected" not in k), reverse=True)[:3]
        busy = 100 * num(r, "sm__cycles_active.avg") / num(r, "sm__cycles_elapsed.avg")
        atom = num(r, "lts__t_requests_op_atom.sum") + num(r, "lts__t_requests_op_red.sum")
        out.append(f"| {label} | {num(r, 'launch__grid_size'):.0f} | {num(r, 'launch__registers_per_thread'):.0f} "
                   f"| {num(r, 'gpu__time_duration.sum') / 1e3:.1f} | {num(r, 'smsp__inst_executed.sum') / 1e6:.2f} "
                   f"| {num(r, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):.1f} "
                   f"| {num(r, 'dram__bytes_read.sum') / 1e9:.3f} | {busy:.1f} "
                   f"| {num(r, 'sm__warps_active.avg.pct_of_peak_sustained_active'):.1f} | {atom:.0f} | "
                   + ", ".join(f"{name} {v:.0f}" for v, name in stalls) + " |")
    return "\n".join(out) + "\n"


def main():
    d = sys.argv[1]
    for path in sorted(glob.glob(os.path.join(d, "ncu_*.csv"))):
        length = os.path.basename(path)[4:-4]
        labels = open(os.path.join(d, f"launches_{length}.txt")).read().split("\n")[:-1]
        print(table(length, rows_of(path), labels))


if __name__ == "__main__":
    main()
