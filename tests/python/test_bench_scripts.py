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
    # the kernels: sr_block, sr_run by name; the warp kernels through WARP_KERNELS(L) and WARP_KERNEL(L, name, ...)
    defined = set(re.findall(r"\b(sr_block|sr_run)\(const", KERNELS_CU.read_text())) | set(warp_kernels_of_kernels_cu())
    assert {"sr_block", "sr_run", "sr_warp4", "sr_warp32u", "sr_warp8t"} <= defined, defined
    plans = [bench.adaptive.Plan(first, lanes, abs(defer)) for first, lanes, defer in bench.EXPLORE]
    assert plans and {p.kernel for p in plans} <= defined, {p.kernel for p in plans} - defined
