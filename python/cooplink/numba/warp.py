"""coop.warp: CUB's warp primitives for Numba kernels, over logical warps of 1 to 32 threads.

Factories with cuda.coop 1.0.2's names and parameters (make_reduce, make_sum, make_exclusive_sum), and
cooplink's others (make_inclusive_sum, make_exclusive_scan, make_inclusive_scan); calls with no factory
inside a kernel (reduce, sum, exclusive_sum, inclusive_sum, exclusive_scan, inclusive_scan) that take the
dtype from the value and the logical warp from threads_in_warp= (default 32).

Each thread gives one value: `agg = warp_sum(x)` (defined in lane 0 of each logical warp), `agg =
warp_sum(x, num_valid)` over the first num_valid lanes, `y = warp_exclusive_sum(x)`, `y =
warp_exclusive_scan(x[, initial], aggregate=<one-element array>)`. Thread t belongs to logical warp t // L
when L divides 32; for other L, as in CUB, each hardware warp holds 32 // L whole logical warps and its
remaining lanes must not call. Temp storage, when the primitive needs some (a lane count that is not a
power of two) and the call is given none, is the calling logical warp's slot of a shared array with a
slot per logical warp of a 1024-thread block, which every such call of the kernel shares (it is as large
as the largest of them needs); the call then ends with a __syncwarp of its lanes.
"""

from numba.cuda import types

from . import _extension
from ._primitive import Primitive, Variant, check_lanes, numba_dtype, op_name

__all__ = ["make_reduce", "make_sum", "make_exclusive_sum", "make_inclusive_sum", "make_exclusive_scan",
           "make_inclusive_scan", "reduce", "sum", "exclusive_sum", "inclusive_sum", "exclusive_scan",
           "inclusive_scan"]


def _reduce(dtype, lanes, op):
    return Primitive("warp_reduce", dtype, None, 1, None, op,
                     [Variant("full", f"reduce_{op}"), Variant("partial", f"reduce_{op}_partial")], lanes=lanes)


def _scan(dtype, lanes, op, mode, initial=None):
    return Primitive("warp_scan", dtype, None, 1, None, op,
                     [Variant(mode, f"{mode}_scan_{op}", optional_in=("initial",))], initial=initial, lanes=lanes)


def _no_methods(methods):
    if methods is not None:
        raise ValueError(f"methods={methods!r}: cooplink takes a user type as a record dtype (a numpy structured "
                         f"dtype) with a Python operator; methods= is not used")


# ---------------------------------------------------------------- factories

def make_reduce(dtype, binary_op, threads_in_warp=32, methods=None):
    """WarpReduce. In a kernel: agg = reduce(x) or reduce(x, num_valid); defined in lane 0."""
    _no_methods(methods)
    nb = numba_dtype(dtype)
    return _reduce(nb, check_lanes(threads_in_warp), op_name(binary_op, "binary_op", nb))


def make_sum(dtype, threads_in_warp=32):
    return _reduce(numba_dtype(dtype), check_lanes(threads_in_warp), "sum")


def make_exclusive_sum(dtype, threads_in_warp=32):
    """WarpScan exclusive sum. In a kernel: y = exclusive_sum(x[, aggregate=]); lane 0 gets 0."""
    return _scan(numba_dtype(dtype), check_lanes(threads_in_warp), "sum", "exclusive")


def make_inclusive_sum(dtype, threads_in_warp=32):
    return _scan(numba_dtype(dtype), check_lanes(threads_in_warp), "sum", "inclusive")


def make_exclusive_scan(dtype, scan_op, threads_in_warp=32, initial_value=None):
    """WarpScan exclusive. In a kernel: y = exclusive_scan(x[, initial][, aggregate=]); lane 0 gets the
    initial value (initial_value=, else the operator's identity)."""
    nb = numba_dtype(dtype)
    op = op_name(scan_op, "scan_op", nb)
    if initial_value is not None and op == "sum":
        raise ValueError("initial_value is not supported for an exclusive sum (it starts at 0)")
    mode = "exclusive"
    if op.startswith("custom_") and mode == "exclusive" and initial_value is None:
        raise ValueError(f"scan_op={getattr(scan_op, '__name__', scan_op)!r}: an exclusive scan with a Python "
                         f"function as its operator has no identity to start from: give initial_value=")
    return _scan(numba_dtype(dtype), check_lanes(threads_in_warp), op, "exclusive", initial_value)


def make_inclusive_scan(dtype, scan_op, threads_in_warp=32):
    nb = numba_dtype(dtype)
    return _scan(nb, check_lanes(threads_in_warp), op_name(scan_op, "scan_op", nb), "inclusive")


# ---------------------------------------------------------------- calls with no factory

_CONFIG = ("threads_in_warp", "op", "binary_op", "scan_op")


def _lanes(kws, name):
    from .block import _literal
    lanes = _literal(kws.get("threads_in_warp"), f"{name}: threads_in_warp", (int,))
    return check_lanes(32 if lanes is None else lanes, f"{name}: threads_in_warp")


def _value_dtype(args, name):
    if not args:
        raise ValueError(f"{name}: missing argument: the thread's value")
    t = args[0]
    if isinstance(t, types.Array):
        raise ValueError(f"{name}: each thread gives one value (a scalar), got an array ({t})")
    return numba_dtype(t, f"{name}: the value")


def _op(kws, name, default, dtype):
    """The call's op: a name, or a @cuda.jit device function (a Python operator)."""
    from .block import _literal
    if default is not None:
        return default
    return op_name(_literal(kws.get("op", kws.get("binary_op", kws.get("scan_op"))), f"{name}: op",
                            (str, callable)) or "sum", "op", dtype)


def _reduce_call(default_op):
    def make(args, kws):
        name = "coop.warp.sum" if default_op else "coop.warp.reduce"
        nb = _value_dtype(args, name)
        return _reduce(nb, _lanes(kws, name), _op(kws, name, default_op, nb))
    return make


def _scan_call(mode, default_op):
    def make(args, kws):
        name = f"coop.warp.{mode}_{'sum' if default_op else 'scan'}"
        nb = _value_dtype(args, name)
        return _scan(nb, _lanes(kws, name), _op(kws, name, default_op, nb), mode)
    return make


def _stub(name, doc):
    return _extension.call_stub(__name__, f"coop.warp.{name}", name, doc)


reduce = _stub("reduce", "agg = reduce(x[, num_valid], op='sum', threads_in_warp=32): defined in lane 0")
sum = _stub("sum", "agg = sum(x[, num_valid], threads_in_warp=32): defined in lane 0")
exclusive_sum = _stub("exclusive_sum", "y = exclusive_sum(x, threads_in_warp=32, aggregate=)")
inclusive_sum = _stub("inclusive_sum", "y = inclusive_sum(x, threads_in_warp=32, aggregate=)")
exclusive_scan = _stub("exclusive_scan", "y = exclusive_scan(x[, initial], op=, threads_in_warp=32, aggregate=)")
inclusive_scan = _stub("inclusive_scan", "y = inclusive_scan(x, op=, threads_in_warp=32, aggregate=)")

for _fn, _maker in ((reduce, _reduce_call(None)), (sum, _reduce_call("sum")),
                    (exclusive_sum, _scan_call("exclusive", "sum")), (inclusive_sum, _scan_call("inclusive", "sum")),
                    (exclusive_scan, _scan_call("exclusive", None)), (inclusive_scan, _scan_call("inclusive", None))):
    _extension.register_single_phase(_fn, _maker, _CONFIG)
