"""Shared helpers: compile a Numba kernel for sm_90 without a GPU and link it through libcooplink."""

import pathlib
import re

import pytest
from numba import cuda

ARCH = 90
KERNELS_CU = pathlib.Path(__file__).resolve().parents[2] / "bench/segreduce/kernels.cu"


def warp_kernels_of_kernels_cu():
    """bench/segreduce/kernels.cu's warp kernels, from its WARP_KERNELS(L) and WARP_KERNEL(L, NAME, ...)
    rows: {name: (U of its logical warps' loop, WARP_RANGE or WARP_RANGE4; BU of its blocks' loop)}."""
    source = KERNELS_CU.read_text()
    def family(range_name):  # warp_range_##L, warp_range4_##L, warp_range4_8: warp_range, warp_range4
        return re.sub(r"_?(##L|\d+)$", "", range_name)
    units = {family(r): int(u) for u, r in re.findall(r"WARP_RANGE\(L, (\d+), ([#\w]+)\)", source)}
    units.update({family(r): 4 for r in re.findall(r"WARP_RANGE4\(L, ([#\w]+)\)", source)})  # (U = 4)
    lanes = re.findall(r"^WARP_KERNELS\((\d+)\)", source, re.M)
    rows = re.findall(r"WARP_KERNEL\(\w+, (sr_warp[#\w]+), \w+, ([#\w]+), \w+, (\d+), \w+\)", source)
    return {name.replace("##L##", L).replace("##L", L): (units[family(r)], int(bu)) for name, r, bu in rows
            for L in (lanes if "##L" in name else [""])}


def compile_and_link(kernel, sig, arch=ARCH, launch_bounds=None):
    """The kernel's LTO-IR (numba-cuda, no GPU) linked through libcooplink: {ptx, log, info, linkables}."""
    from cooplink import _lib
    codes, _ = cuda.compile_all(kernel, sig, device=False, abi="numba", cc=(arch // 10, arch % 10),
                                output="ltoir", launch_bounds=launch_bounds)
    kernel_ir, linkables = codes[0], codes[1:]
    inputs = [("ltoir", kernel_ir, "kernel.ltoir")]
    # numba-cuda's own code (its bf16/fp16 shims, compiled to LTO-IR objects) goes in as it is; the
    # bundles cooplink attached are found again by libcooplink from the kernel's calls
    for i, c in enumerate(linkables):
        if type(c).__name__ == "ObjectCode":
            inputs.append((c.code_type, c.code, f"numba_{i}.{c.code_type}"))
        elif type(c).__name__ == "LTOIR" and c.name.startswith("py_"):  # an operator given as a Python function
            inputs.append(("ltoir", bytes(c.data), c.name))
    from cooplink.numba import _primitive
    out = _lib.link(inputs, arch, ["-ptx", "-verbose", "-cache=0"], types=tuple(_primitive.USER_TYPES.values()))
    out["linkables"] = linkables
    return out


def link_as_numba(kernel, sig, arch=ARCH):
    """What Numba's own link gets, linked as it links it (cuda.core's Linker over nvJitLink, -lto, no
    -optimize-unused-variables): the kernel and exactly the payloads its calls attached. Returns
    {ptx, log, linkables}."""
    from cuda.core import Linker, LinkerOptions, ObjectCode
    codes, _ = cuda.compile_all(kernel, sig, device=False, abi="numba", cc=(arch // 10, arch % 10),
                                output="ltoir")
    objs = [ObjectCode.from_ltoir(codes[0])]
    for c in codes[1:]:
        if type(c).__name__ == "ObjectCode":
            objs.append(c)
        elif type(c).__name__ == "Fatbin":
            objs.append(ObjectCode.from_fatbin(c.data))
        else:
            objs.append(ObjectCode.from_ltoir(c.data))
    opts = LinkerOptions(arch=f"sm_{arch}", link_time_optimization=True, ptx=True, verbose=True)
    linker = Linker(*objs, options=opts)
    ptx = linker.link("ptx").code
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    # ptxas's report: the cubin of the same inputs
    linker2 = Linker(*objs, options=LinkerOptions(arch=f"sm_{arch}", link_time_optimization=True, verbose=True))
    linker2.link("cubin")
    return {"ptx": ptx, "log": linker2.get_info_log(), "linkables": codes[1:]}


def assert_inlined(out):
    """No call, no .func, a 0-byte stack frame and no spills in the linked kernel."""
    ptx = out["ptx"]
    calls = re.findall(r"\bcall(?:\.uni)?\b[^;]*", ptx)
    assert calls == [], calls
    assert ".func" not in ptx
    frames = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", out["log"])
    assert frames, out["log"]
    assert all(f == ("0", "0", "0") for f in frames), frames
    assert ".local" not in ptx


@pytest.fixture
def device_functions_without_gpu(monkeypatch):
    """numba-cuda asks the driver for the arch when it compiles a device function (the operator's); without
    a GPU, answer sm_90, the arch these tests compile for."""
    import numba.cuda.dispatcher as dispatcher

    class Device:
        compute_capability = (9, 0)
    if not cuda.is_available():
        monkeypatch.setattr(dispatcher, "get_current_device", lambda: Device())


@pytest.fixture
def link():
    return compile_and_link
