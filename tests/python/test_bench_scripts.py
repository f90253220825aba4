"""The benchmark scripts run only on the GPU machine (bench/segreduce/device.sh), where a script that does not
parse costs a device call: here every one of them must compile, and every plan bench.py --explore times must
name a kernel that kernels.cu defines."""

import importlib.util
import pathlib
import py_compile
import re

import pytest
from conftest import KERNELS_CU, warp_kernels_of_kernels_cu

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p for d in ("bench", "tests/gpu") for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_compiles(path, tmp_path):
    py_compile.compile(str(path), cfile=str(tmp_path / "out.pyc"), doraise=True)


def test_explore_plans_name_kernels_of_kernels_cu():
    spec = importlib.util.spec_from_file_location("segreduce_bench", ROOT / "bench/segreduce/bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)  # (its GPU imports are in main())
    # the kernels: sr_block, sr_run, sr_wrun by name; the warp kernels through WARP_KERNELS(L) and WARP_KERNEL(L, name, ...)
    source = "".join((KERNELS_CU.parent / f).read_text() for f in ("kernels.cu", "runs.cuh"))  # (runs.cuh: included)
    defined = set(re.findall(r"\b(sr_block|sr_w?run)\(const", source)) | set(warp_kernels_of_kernels_cu())
    assert {"sr_block", "sr_run", "sr_wrun", "sr_warp4", "sr_warp32u", "sr_warp8t"} <= defined, defined
    plans = [bench.adaptive.Plan(first, lanes, abs(defer)) for first, lanes, defer in bench.EXPLORE]
    assert plans and {p.kernel for p in plans} <= defined, {p.kernel for p in plans} - defined


def _load(name, rel):
    spec = importlib.util.spec_from_file_location(name, ROOT / rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_heavy_halves_cover_the_items():
    import numpy as np
    bench = _load("segreduce_bench", "bench/segreduce/bench.py")
    n = 1 << 24
    heavy = bench.lengths_for("heavy", n, np.random.default_rng(0))
    short = bench.lengths_for("heavy-short", n, np.random.default_rng(0))
    long_ = bench.lengths_for("heavy-long", n, np.random.default_rng(0))
    assert heavy.sum() == short.sum() == long_.sum() == n and min(heavy.min(), short.min(), long_.min()) >= 1
    assert long_.size == 6 and long_.min() >= 0.06 * n - 1 and long_.max() >= 0.4 * n  # the six, over all n
    assert short.max() < 8192 < heavy.max() and 60 < short.mean() < 68


def test_scan_launcher_takes_the_chain_for_short_segments_only():
    scan = _load("scan_bench", "bench/scan/scan.py")
    n, sms = 1 << 28, 132  # (1 GiB of float32, an H100's SMs)
    chain4 = f"cooplink chain scan {scan.CHAIN_4B}"  # (4-byte types: the wide look-back, packed words)
    assert scan.choose(n, n // 128, 4, sms) == scan.choose(n, n // 1024, 4, sms) == chain4
    assert scan.choose(n, n // 2000, 4, sms) == chain4  # (random lengths: mean 2000)
    assert scan.choose(n // 2, n // 2 // 128, 8, sms) == "cooplink chain scan"
    assert scan.choose(n // 2, n // 2 // 1024, 8, sms) == "cooplink block scan"  # (8 KB: a block's tile)
    assert scan.choose(n, n // 4096, 4, sms) == scan.choose(n // 2, n // 2 // 4096, 8, sms) == "cooplink block scan"
    assert scan.choose(n, n // 8192, 4, sms) == "cooplink block scan"  # (32 KB a segment: under the clusters' 64 KB)
    assert scan.choose(200 * 8192, 200, 4, sms) == "cooplink block scan d2"  # (200 segments: under 8 an SM)
    # long segments: a cluster a segment, of 4 while segments x 4 fit the GPU at once (6 blocks an SM), else of 2
    assert scan.choose(n, n // 16384, 4, sms) == scan.choose(n, n // 65536, 4, sms) == "cooplink block scan c2"
    assert scan.choose(n, n // (1 << 20), 4, sms) == "cooplink block scan c2"  # (256 segments: 1024 blocks with 4)
    assert scan.choose(n // 2, n // 2 // (1 << 20), 8, sms) == "cooplink block scan c4"  # (float64: 128 segments)
    assert scan.choose(n, n // (4 << 20), 4, sms) == "cooplink block scan c4"  # (64 segments)
    assert scan.choose(n, n // (16 << 20), 4, sms) == chain4  # (16: under a block an SM with 4)
    assert scan.ratio_key("cooplink chain scan") == "cooplink chain"
    assert scan.ratio_key("cooplink block scan d2") == "cooplink d2" and scan.ratio_key("cooplink block scan") == "cooplink"


def test_every_cluster_build_scan_times_is_prepared_with_its_size():
    """scan.py launches a CLUSTER build on segments x its size blocks: prepare.sh must build each with that
    SC_CLUSTER (a grid that is not the cluster's multiple fails to launch; one of another size scans wrong)."""
    scan = _load("scan_bench", "bench/scan/scan.py")
    prep = (ROOT / "bench/segreduce/prepare.sh").read_text()
    m = re.search(r'for k in ([\d ]+); do\n\s*bm_scan [^\n]*"\$out/scan-\$tc-c\$k" 2 2 -Xnvrtc -DSC_CLUSTER=\$k\n', prep)
    assert m, "prepare.sh's cluster builds"
    assert scan.CLUSTER == {f"c{k}": int(k) for k in m.group(1).split()}
    assert set(scan.CLUSTER) <= set(scan.VARIANTS)


def test_every_chain_build_scan_times_is_prepared():
    """scan.py skips a build it does not find, so a name in CHAIN_VARIANTS that prepare.sh never builds would
    cost a device call and time nothing; the launcher's chain for 4-byte types is one of them, with its nvcc
    build (the report's third column)."""
    scan = _load("scan_bench", "bench/scan/scan.py")
    prep = (ROOT / "bench/segreduce/prepare.sh").read_text()
    direct = set(re.findall(r'bm_scan [^\n]*"\$out/scan-\$tc-(\w+)"', prep))
    table = set(re.findall(r'"(\w+) (\S+) (\S+) (\S+) ([-t])"', prep))
    assert table and 'bm_nvcc bench/scan/scan.cu "$out/catalog" "$out/scan-$tc-$name"' in prep
    assert set(scan.CHAIN_VARIANTS) == direct | {m[0] for m in table}, (set(scan.CHAIN_VARIANTS), direct, table)
    assert scan.CHAIN_4B in {m[0] for m in table}
    # --skip-explore leaves out every explore build but the launcher's chain, and nothing else
    skip = re.compile(scan.explore_skip())
    assert not skip.search(f"cooplink chain scan {scan.CHAIN_4B}") and not skip.search("cooplink chain scan")
    assert all(skip.search(f"whole chain scan {v}") for v in scan.CHAIN_VARIANTS if v != scan.CHAIN_4B)
    assert not any(skip.search(f"cooplink block scan {v}") for v in scan.VARIANTS)


def test_report_mends_torchs_first_call(tmp_path):
    """A run's first torch call starts torch: its figure (untimed, no second run) gives way to an earlier
    run's figure of that configuration, or to none; torch's later configurations of the run stay."""
    import json
    report = _load("segreduce_report", "bench/segreduce/report.py")

    def run(*configs):
        return {"configs": [{"type": "f32", "op": "sum", "lengths": d, "kernels": {report.TORCH: t}}
                            for d, t in configs]}
    slow_first = {"ms": 40.0, "first_ms": 40.0, "untimed": True}
    early, late = tmp_path / "early.json", tmp_path / "late.json"
    early.write_text(json.dumps(run(("32", slow_first), ("1024", {"ms": 0.55}))))
    late.write_text(json.dumps(run(("1024", dict(slow_first)), ("32", {"ms": 9.0, "untimed": True}))))
    _, res = report.merge([str(early), str(late)])
    got = {c["lengths"]: c["kernels"][report.TORCH] for c in res["configs"]}
    assert got["1024"]["ms"] == 0.55 and got["1024"]["earlier_run"]  # the early run's timed figure
    assert got["32"] == {"ms": 9.0, "untimed": True}  # the late run's second torch call: its own figure
    _, res = report.merge([str(early)])
    assert "error" in res["configs"][0]["kernels"][report.TORCH]  # no earlier figure: none


def test_profile_names_each_row_with_its_launch():
    """profile.py reads ncu's raw CSV that device.sh profile brought back and names its rows with bench.py's
    launches, in order (2026-12-06's run, both operators: a row named wrongly would misread a profile)."""
    profile = _load("segreduce_profile", "bench/segreduce/profile.py")
    d = ROOT / "bench/results/segreduce/s32_profile"
    labels = (d / "launches_1024.txt").read_text().split("\n")[:-1]
    rows = profile.rows_of(str(d / "ncu_1024.csv"))
    assert len(rows) == len(labels) == 48
    table = profile.table("1024", rows, labels)
    line = next(ln for ln in table.splitlines() if ln.startswith("| f32 sum numba alone |"))
    # grid, registers, time (us), warp instructions (M): the profile bench/README cites
    assert line.split(" | ")[1:5] == ["528", "63", "364.8", "41.21"], line
    assert next(ln for ln in table.splitlines() if ln.startswith("| f32 max cooplink alone |")).split(" | ")[1:5] == \
        ["528", "64", "356.9", "50.70"]
    with pytest.raises(SystemExit, match="48 profiled kernels but 47 launches named"):
        profile.table("1024", rows, labels[:-1])


class _FakeGPU:
    """Enough of cupy for Runner.time, on a simulated timeline: a launch takes 10 us when L2 holds nothing of the
    launch before (after an L2 flush), 7 us when it does (its results and offsets still there); a flush 100 us."""

    def __init__(self):
        self.clock, self.log, gpu = 0.0, [], self

        class Event:
            def record(self):
                self.t = gpu.clock
                gpu.log.append("event")

            def synchronize(self):
                pass

        class Runtime:
            @staticmethod
            def deviceSynchronize():
                pass

        class Cuda:
            runtime = Runtime

            @staticmethod
            def get_elapsed_time(e0, e1):
                return e1.t - e0.t
        Cuda.Event = Event
        self.cuda = Cuda

    def op(self, what):
        ops = [x for x in self.log if x != "event"]
        warm = bool(ops) and ops[-1] == "launch"
        self.clock += {"flush": 100.0, "launch": 7.0 if warm else 10.0}[what]
        self.log.append(what)


@pytest.mark.parametrize("l2,want", [("warm", 7.0), ("cold", 10.0)])
def test_cold_timing_flushes_l2_before_each_launch_outside_its_events(monkeypatch, l2, want):
    bench = _load("segreduce_bench", "bench/segreduce/bench.py")
    gpu = _FakeGPU()
    R = bench.Runner(gpu, None, 0)
    monkeypatch.setattr(bench.Runner, "l2", l2)
    monkeypatch.setattr(R, "hold", lambda ms: None)
    monkeypatch.setattr(R, "flush_l2", lambda: gpu.op("flush"))
    R.launch["k"], R.info["k"] = (lambda: gpu.op("launch")), {"bytes": 7000}
    R.time(3)
    assert R.info["k"]["ms"] == want and len(R.info["k"]["times"]) == 3
    timed = gpu.log[gpu.log.index("event") + 3:]  # (after the warm-up's one launch between events)
    if l2 == "cold":  # each launch: flush, event, launch, event
        assert timed == ["flush", "event", "launch", "event"] * (len(timed) // 4) and len(timed) >= 4 * 3 * 2
    else:  # a round: event, the launches back to back, event
        assert "flush" not in gpu.log and timed[0] == "event" and timed[1:3] == ["launch", "launch"]


def test_l2_flush_kernels_build_for_sm_90(tmp_path):
    """bench.py --l2 cold's flush compiles (a device call is lost to a kernel that does not): its loads carry the
    evict_last policy, and it puts the lines back to normal priority."""
    import os
    import subprocess
    bench = _load("segreduce_bench", "bench/segreduce/bench.py")
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")  # (the README's toolkit)
    src = tmp_path / "flush.cu"
    src.write_text(bench.Runner.FLUSH)
    subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-o", str(tmp_path / "flush.cubin"), str(src)], check=True)
    ptx = subprocess.run([nvcc, "-arch=sm_90", "-ptx", "-o", "-", str(src)], check=True, capture_output=True,
                         text=True).stdout
    assert re.findall(r"ld\.global\.L2::cache_hint\.v4\.s32", ptx) and "createpolicy.fractional.L2::evict_last" in ptx
    assert "applypriority.global.L2::evict_normal" in ptx
