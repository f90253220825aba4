"""coop.warp: CUB's warp primitives for Numba kernels, over logical warps of 1 to 32 threads.

Factories with cuda.coop 1.0.2's names and parameters (make_reduce, make_sum, make_exclusive_sum), and
cooplink's others (make_inclusive_sum, make_exclusive_scan, make_inclusive_scan, make_load, make_store,
make_exchange); calls with no factory inside a kernel (reduce, sum, exclusive_sum, inclusive_sum,
exclusive_scan, inclusive_scan, load, store, exchange) that take the dtype from the value (or the items
array) and the logical warp from threads_in_warp= (default 32).

Each thread gives one value: `agg = warp_sum(x)` (defined in lane 0 of each logical warp), `agg =
warp_sum(x, num_valid)` over the first num_valid lanes, `y = warp_exclusive_sum(x)`, `y =
warp_exclusive_scan(x[, initial], aggregate=<one-element array>)`. Thread t belongs to logical warp t // L
when L divides 32; for other L, as in CUB, each hardware warp holds 32 // L whole logical warps and its
remaining lanes must not call. Temp storage, when the primitive needs some (a lane count that is not a
power of two) and the call is given none, is the calling logical warp's slot of a shared array with a
slot per logical warp of a 1024-thread block, which every such call of the kernel shares (it is as large
as the largest of them needs); the call then ends with a __syncwarp of its lanes.
"""

import enum

from numba.cuda import types

from . import _extension
from ._primitive import (Primitive, Variant, check_algorithm, check_items, check_lanes, numba_dtype, op_name,
                         predicate_name)

__all__ = ["make_reduce", "make_sum", "make_exclusive_sum", "make_inclusive_sum", "make_exclusive_scan",
           "make_inclusive_scan", "make_load", "make_store", "make_exchange", "WarpExchangeType",
           "make_merge_sort_keys", "make_merge_sort_pairs", "merge_sort", "reduce", "sum",
           "exclusive_sum", "inclusive_sum", "exclusive_scan", "inclusive_scan", "load", "store", "exchange"]


class WarpExchangeType(enum.IntEnum):
    """The rearrangements of a warp exchange (CUB's WarpExchange methods)."""
    BlockedToStriped = 0
    StripedToBlocked = 1
    ScatterToStriped = 2


_EXCHANGES = ("blocked_to_striped", "striped_to_blocked", "scatter_to_striped")


def _pow2_lanes(family, lanes):
    if lanes & (lanes - 1):
        raise ValueError(f"threads_in_warp={lanes}: CUB's {family.replace('_', ' ')} needs a power of two "
                         f"(1, 2, 4, 8, 16 or 32)")
    return lanes


def _load_store(family, dtype, items, lanes, algorithm):
    verb = family.split("_")[1]
    return Primitive(family, dtype, None, check_items(items), check_algorithm(family, algorithm), None,
                     [Variant("plain", verb), Variant("guarded", f"{verb}_guarded", optional_in=("oob_default",))],
                     lanes=_pow2_lanes(family, lanes), warp_items=True)


def _exchange(dtype, items, lanes, kind, algorithm):
    if isinstance(kind, WarpExchangeType):
        kind = _EXCHANGES[int(kind)]
    if kind not in _EXCHANGES:
        raise ValueError(f"exchange_type={kind!r}: use WarpExchangeType or one of {', '.join(_EXCHANGES)}")
    algo, items = check_algorithm("warp_exchange", algorithm), check_items(items)
    if algo == "shuffle" and items != lanes:
        raise ValueError(f"algorithm='shuffle': CUB's shuffle exchange needs items_per_thread == threads_in_warp, "
                         f"got {items} and {lanes}")
    if algo == "shuffle" and kind == "scatter_to_striped":
        raise ValueError("algorithm='shuffle': CUB's shuffle exchange has no scatter_to_striped (use 'smem')")
    if algo == "shuffle" and isinstance(dtype, types.Record):
        raise ValueError(f"algorithm='shuffle' with dtype={dtype}: CUB's shuffle exchange moves values with "
                         f"__shfl_xor_sync, which takes built-in types only (use 'smem')")
    return Primitive("warp_exchange", dtype, None, items, algo, None, [Variant(kind, f"exchange_{kind}")],
                     lanes=_pow2_lanes("warp_exchange", lanes), warp_items=True)


_COMPARATORS = {"less": "less", "<": "less", "greater": "greater", ">": "greater"}


def comparator_name(compare_op, dtype, what="compare_op"):
    """The ABI comparator of a name or a Python function (custom: a C-ABI int(a, b), a before b)."""
    return predicate_name(compare_op, dtype, what, _COMPARATORS, "comparator",
                          "use 'less', 'greater' ('<', '>') or a Python function cmp(a, b) that is true when a goes "
                          "before b",
                          "cooplink has no order on a record; give a Python function cmp(a, b) that is true when a "
                          "goes before b")


def merge_sort_primitive(family, keys, values, block, items, compare_op, **scope):
    """A merge sort (warp or block: `scope` is the warp's lanes=, warp_items=) of keys, or of key-value
    pairs when `values` is a dtype, plain and guarded, with a comparator."""
    cmp = comparator_name(compare_op, keys)
    kind = "pairs" if values is not None else "keys"
    return Primitive(family, keys, block, check_items(items), None, cmp,
                     [Variant(kind, f"merge_sort_{kind}_{cmp}"),
                      Variant(f"{kind}_guarded", f"merge_sort_{kind}_guarded_{cmp}")], values=values, **scope)


def _merge_sort(keys, values, items, lanes, compare_op):
    return merge_sort_primitive("warp_merge_sort", keys, values, None, items, compare_op,
                                lanes=_pow2_lanes("warp_merge_sort", lanes), warp_items=True)


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


def make_merge_sort_keys(dtype, items_per_thread, compare_op, threads_in_warp=32, methods=None):
    """WarpMergeSort of keys (cuda.coop 1.0.2's signature). In a kernel: sort(keys[, num_valid,
    oob_default]) sorts the logical warp's blocked tile in place, stably (with num_valid: its first
    num_valid items into its first places; as in CUB, the places after them are unspecified); compare_op:
    'less', 'greater' or a Python function cmp(a, b), true when a goes before b."""
    _no_methods(methods)
    return _merge_sort(numba_dtype(dtype), None, items_per_thread, check_lanes(threads_in_warp), compare_op)


def make_merge_sort_pairs(keys_dtype, values_dtype, items_per_thread, compare_op, threads_in_warp=32):
    """WarpMergeSort of key-value pairs. In a kernel: sort(keys, values[, num_valid, oob_default])."""
    return _merge_sort(numba_dtype(keys_dtype), numba_dtype(values_dtype, "values_dtype"), items_per_thread,
                       check_lanes(threads_in_warp), compare_op)


def make_load(dtype, items_per_thread, threads_in_warp=32, algorithm="direct"):
    """WarpLoad. In a kernel: load(src, items[, num_valid[, oob_default]][, temp_storage=]): each logical
    warp loads its tile of threads_in_warp * items_per_thread items (a power-of-two logical warp)."""
    return _load_store("warp_load", numba_dtype(dtype), items_per_thread, check_lanes(threads_in_warp), algorithm)


def make_store(dtype, items_per_thread, threads_in_warp=32, algorithm="direct"):
    """WarpStore. In a kernel: store(dst, items[, num_valid][, temp_storage=])."""
    return _load_store("warp_store", numba_dtype(dtype), items_per_thread, check_lanes(threads_in_warp), algorithm)


def make_exchange(exchange_type, dtype, items_per_thread, threads_in_warp=32, algorithm="smem"):
    """WarpExchange. In a kernel: exchange(items_in, items_out[, ranks]) (ranks for ScatterToStriped: each
    item's place in the logical warp's tile, int32)."""
    return _exchange(numba_dtype(dtype), items_per_thread, check_lanes(threads_in_warp), exchange_type, algorithm)


# ---------------------------------------------------------------- calls with no factory

_CONFIG = ("threads_in_warp", "op", "binary_op", "scan_op", "algorithm", "items_per_thread", "exchange_type",
           "compare_op")


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


def _items_call(family, items_arg):
    """load(src, items), store(dst, items), exchange(items_in, items_out[, ranks]): dtype and items per
    thread from the items array (coop.local.array) or items_per_thread=."""
    def make(args, kws):
        from .block import _call_items, _dtype_of, _literal, _need
        verb = family.split("_")[1]
        name = f"coop.warp.{verb}"
        _need(args, 2, name, "the tile and the items" if verb != "exchange" else "the items in and out")
        what = "items" if verb != "exchange" else "items_in"
        t = args[items_arg]
        nb = _dtype_of(t, name, what)
        items = _call_items(t, kws, name, what)
        algo = _literal(kws.get("algorithm"), f"{name}: algorithm", (str,))
        if verb == "exchange":
            kind = _literal(kws.get("exchange_type"), f"{name}: exchange_type", (str, int)) or "blocked_to_striped"
            if isinstance(kind, int):
                kind = WarpExchangeType(kind)
            return _exchange(nb, items, _lanes(kws, name), kind, algo or "smem")
        return _load_store(family, nb, items, _lanes(kws, name), algo or "direct")
    return make


def _stub(name, doc):
    return _extension.call_stub(__name__, f"coop.warp.{name}", name, doc)


reduce = _stub("reduce", "agg = reduce(x[, num_valid], op='sum', threads_in_warp=32): defined in lane 0")
sum = _stub("sum", "agg = sum(x[, num_valid], threads_in_warp=32): defined in lane 0")
exclusive_sum = _stub("exclusive_sum", "y = exclusive_sum(x, threads_in_warp=32, aggregate=)")
inclusive_sum = _stub("inclusive_sum", "y = inclusive_sum(x, threads_in_warp=32, aggregate=)")
exclusive_scan = _stub("exclusive_scan", "y = exclusive_scan(x[, initial], op=, threads_in_warp=32, aggregate=)")
inclusive_scan = _stub("inclusive_scan", "y = inclusive_scan(x, op=, threads_in_warp=32, aggregate=)")

load = _stub("load", "load(src, items[, num_valid[, oob_default]], threads_in_warp=32, algorithm='direct')")
store = _stub("store", "store(dst, items[, num_valid], threads_in_warp=32, algorithm='direct')")
exchange = _stub("exchange", "exchange(items_in, items_out[, ranks], exchange_type='blocked_to_striped', "
                             "threads_in_warp=32, algorithm='smem')")

def sort_call_args(args, kws, name):
    """(keys dtype, values dtype or None, items per thread, comparator) of a merge_sort call with no factory."""
    from .block import _call_items, _dtype_of, _literal, _need
    _need(args, 1, name, "the keys")
    keys = _dtype_of(args[0], name, "keys")
    items = _call_items(args[0], kws, name, "keys")
    # a second array is the values (a sort of pairs); a number there is num_valid
    values = _dtype_of(args[1], name, "values") if len(args) > 1 and isinstance(args[1], types.Array) else None
    cmp = _literal(kws.get("compare_op", kws.get("op")), f"{name}: compare_op", (str, callable)) or "less"
    return keys, values, items, cmp


def _sort_call(args, kws):
    name = "coop.warp.merge_sort"
    keys, values, items, cmp = sort_call_args(args, kws, name)
    return _merge_sort(keys, values, items, _lanes(kws, name), cmp)


merge_sort = _stub("merge_sort", "merge_sort(keys[, values][, num_valid, oob_default], compare_op='less', "
                                 "threads_in_warp=32)")

for _fn, _maker in ((merge_sort, _sort_call), (load, _items_call("warp_load", 1)), (store, _items_call("warp_store", 1)),
                    (exchange, _items_call("warp_exchange", 0)),
                    (reduce, _reduce_call(None)), (sum, _reduce_call("sum")),
                    (exclusive_sum, _scan_call("exclusive", "sum")), (inclusive_sum, _scan_call("inclusive", "sum")),
                    (exclusive_scan, _scan_call("exclusive", None)), (inclusive_scan, _scan_call("inclusive", None))):
    _extension.register_single_phase(_fn, _maker, _CONFIG)
