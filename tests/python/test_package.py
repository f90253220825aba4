"""The installed package: python -m cooplink, the catalog inside the wheel, on-demand generation once
per cache (a second process generates nothing)."""

import os
import subprocess
import sys
import textwrap

import cooplink
from cooplink import _lib


def test_python_m_cooplink():
    out = subprocess.run([sys.executable, "-m", "cooplink"], capture_output=True, text=True, check=True).stdout
    rows = dict(line.split(None, 1) for line in out.splitlines() if line.strip() and not line.startswith("CUDA"))
    assert rows["cooplink"].strip() == cooplink.__version__
    assert "numba-cuda" in rows and "minimum 0.30.4" in rows["numba-cuda"]
    bundles, symbols = _lib.catalog().counts()
    assert f"({bundles} bundles, {symbols} symbols)" in rows["catalog"]
    assert [l for l in out.splitlines() if l.startswith("CUDA toolkit")][0].endswith(")")


def test_catalog_is_the_packaged_one():
    if os.environ.get("COOPLINK_CATALOG"):
        return  # a developer's override
    here = os.path.dirname(os.path.abspath(cooplink.__file__))
    assert _lib.catalog_dir() == os.path.join(here, "catalog")
    bundles, symbols = _lib.catalog().counts()
    assert bundles > 0 and symbols >= bundles


CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    import numba
    from numba.cuda import types
    import cooplink.numba as coop
    from cooplink import _lib
    from conftest import compile_and_link, assert_inlined
    red = coop.block.make_reduce(numba.int32, 96, "max", 3, "raking")  # 96 threads: in no catalog
    def k(d_in, d_out):
        items = coop.local.array(3, numba.int32)
        coop.block.load(d_in, items, threads=96, algorithm="striped")
        d_out[0] = red(items)
    assert_inlined(compile_and_link(k, (types.int32[::1], types.int32[::1])))
    print("generated", _lib.resolve.generated)
""")


def test_on_demand_generation_once(tmp_path):
    env = dict(os.environ, COOPLINK_CACHE=str(tmp_path / "cache"))
    script = CHILD.format(tests=os.path.dirname(os.path.abspath(__file__)))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    first, second = (int(r.stdout.split()[-1]) for r in runs)
    assert first == 4  # load plain + guarded, reduce full + partial: two units generated on demand
    assert second == 0
    assert len(list((tmp_path / "cache" / "generated").glob("*.json"))) == 2
