"""coop.block: CUB's block primitives for Numba kernels.

Factories with cuda.coop 1.0.2's names and parameters (make_load, make_store, make_reduce, make_sum,
make_exclusive_sum, make_inclusive_sum, make_exclusive_scan, make_inclusive_scan, make_scan, make_exchange,
make_merge_sort_keys, make_radix_sort_keys, make_radix_sort_keys_descending), cooplink's
make_merge_sort_pairs, make_radix_sort_pairs, make_discontinuity, make_adjacent_difference, make_shuffle,
make_histogram, make_run_length_decode and make_radix_rank, and calls with no factory inside a kernel (load, store, reduce, sum, exclusive_scan,
inclusive_scan, exclusive_sum, inclusive_sum, scan, exchange, merge_sort, radix_sort, flag_heads, flag_tails,
flag_heads_and_tails, subtract_left, subtract_right, shuffle) that take the dtype and items per thread from
their arguments and the block shape from the launch (or threads=).

Beyond cuda.coop: guarded load/store (`valid`, `oob_default`), partial reduce (`num_valid` with one item),
the scan aggregate (`aggregate=<one-element array>`), the running prefix across tiles
(`running=<one-element array>`), float16 and bfloat16, and no `link=`.
"""

import enum
import re

import numpy as np

from numba.cuda import types

from . import _extension
from ._primitive import (Primitive, Variant, block_shape, check_algorithm, check_items, numba_dtype, op_name,
                         predicate_name)

__all__ = ["make_load", "make_store", "make_reduce", "make_sum", "make_exclusive_sum", "make_inclusive_sum",
           "make_exclusive_scan", "make_inclusive_scan", "make_scan", "make_exchange", "BlockExchangeType",
           "make_merge_sort_keys", "make_merge_sort_pairs", "make_discontinuity", "make_adjacent_difference",
           "make_shuffle", "make_radix_sort_keys", "make_radix_sort_keys_descending", "make_radix_sort_pairs",
           "radix_sort", "make_histogram", "make_run_length_decode", "histogram", "run_length_decode", "make_radix_rank",
           "radix_rank", "load", "store", "reduce", "sum", "exclusive_scan", "inclusive_scan", "exclusive_sum",
           "inclusive_sum", "scan", "exchange", "merge_sort", "flag_heads", "flag_tails", "flag_heads_and_tails",
           "subtract_left", "subtract_right", "shuffle"]


class BlockExchangeType(enum.IntEnum):
    """The rearrangements of a block exchange (CUB's BlockExchange methods; StripedToBlocked has
    cuda.coop 1.0.2's value)."""
    StripedToBlocked = 1
    BlockedToStriped = 2
    WarpStripedToBlocked = 3
    BlockedToWarpStriped = 4
    ScatterToBlocked = 5
    ScatterToStriped = 6
    ScatterToStripedGuarded = 7
    ScatterToStripedFlagged = 8


_EXCHANGES = {t: re.sub(r"(?<!^)(?=[A-Z])", "_", t.name).lower() for t in BlockExchangeType}  # the ABI's names


def _algorithm(family, algorithm, block):
    return check_algorithm(family, algorithm, block[0] * block[1] * block[2])


def _unsupported(name, value, why):
    if value is not None:
        raise ValueError(f"{name}={value!r}: {why}")


def _setup(dtype, threads_per_block, items_per_thread):
    nb = numba_dtype(dtype)
    block = block_shape(threads_per_block)
    items = check_items(items_per_thread)
    return nb, block, items


# ---------------------------------------------------------------- families as primitives

def _load_store(family, dtype, block, items, algorithm):
    verb = "load" if family == "block_load" else "store"
    return Primitive(family, dtype, block, items, _algorithm(family, algorithm, block), None,
                     [Variant("plain", verb), Variant("guarded", f"{verb}_guarded", optional_in=("oob_default",))])


def _reduce(dtype, block, items, algorithm, op):
    return Primitive("block_reduce", dtype, block, items, _algorithm("block_reduce", algorithm, block), op,
                     [Variant("full", f"reduce_{op}"), Variant("partial", f"reduce_{op}_partial", items=1)])


def _scan(dtype, block, items, algorithm, op, mode, initial=None):
    if mode not in ("exclusive", "inclusive"):
        raise ValueError(f"mode={mode!r}: use 'exclusive' or 'inclusive'")
    return Primitive("block_scan", dtype, block, items, _algorithm("block_scan", algorithm, block), op,
                     [Variant(mode, f"{mode}_scan_{op}", optional_in=("initial",)),
                      Variant(f"{mode}_prefix", f"{mode}_scan_{op}_prefix")], initial=initial)


def _exchange(dtype, block, items, kind, time_sliced):
    """CUB refuses nothing here that the generator does not refuse first, saying why (a time-sliced guarded
    or flagged scatter, a warp-striped exchange on a partial last warp): its message reaches the call."""
    if isinstance(kind, int) and not isinstance(kind, bool) and kind in set(BlockExchangeType):
        kind = _EXCHANGES[BlockExchangeType(kind)]
    if kind not in _EXCHANGES.values():
        raise ValueError(f"block_exchange_type={kind!r}: use BlockExchangeType or one of "
                         f"{', '.join(_EXCHANGES.values())}")
    return Primitive("block_exchange", dtype, block, check_items(items), "smem_ts" if time_sliced else "smem", None,
                     [Variant(kind, f"exchange_{kind}")])


def _merge_sort(keys, values, block, items, compare_op):
    n = block[0] * block[1] * block[2]
    if n & (n - 1):
        raise ValueError(f"threads_per_block={block}: CUB's block merge sort needs a power-of-two thread count, "
                         f"got {n}")
    from .warp import merge_sort_primitive
    return merge_sort_primitive("block_merge_sort", keys, values, block, items, compare_op)


# the variants of a mode, in the order a call binds them (a positional extra is the first one that fits;
# keywords name the others: tile_predecessor=, tile_successor=, valid=, block_suffix=, block_prefix=)
_DISCONTINUITY = {"heads": ("heads", "heads_pred"), "tails": ("tails", "tails_succ"),
                  "heads_tails": ("heads_tails", "heads_tails_pred", "heads_tails_succ", "heads_tails_pred_succ")}
_ADJACENT = {"left": ("left", "left_partial", "left_partial_pred", "left_pred"),
             "right": ("right", "right_partial", "right_succ")}
_SHUFFLE = {"offset": ("offset",), "rotate": ("rotate",), "up": ("up", "up_suffix"), "down": ("down", "down_prefix")}
_FLAG_OPS = {"ne": "ne", "!=": "ne", "not_equal_to": "ne", "eq": "eq", "==": "eq", "equal_to": "eq",
             "less": "less", "<": "less", "greater": "greater", ">": "greater"}


def _mode(table, mode, what):
    if mode not in table:
        raise ValueError(f"{what}={mode!r}: use one of {', '.join(table)}")
    return table[mode]


def _flag_op(op, dtype):
    """A discontinuity's flag op: a name, or a Python function flag(a, b), true for a discontinuity."""
    return predicate_name(op, dtype, "flag_op", _FLAG_OPS, "flag op",
                          "use 'ne', 'eq', 'less', 'greater' ('!=', '==', '<', '>') or a Python function flag(a, b), "
                          "true for a discontinuity between a and the item b after it",
                          "cooplink has no comparison of records; give a Python function flag(a, b)")


def _difference_op(op, dtype):
    """An adjacent difference's op: 'sub' (a - b), or a Python function (a, b) -> a op b (records: op(a, b,
    out)), b the item before a (left) or after it (right)."""
    import operator
    import numpy as np
    if op in ("sub", "-", "minus", "subtract") or op is operator.sub or op is np.subtract:
        return "sub"
    if callable(op) and not isinstance(op, str):
        return op_name(op, "difference_op", dtype)
    raise ValueError(f"difference_op={op!r}: use 'sub' ('-') or a Python function op(a, b)")


def _radix_sort(keys, values, block, items, descending, striped, radix_bits):
    if isinstance(keys, types.Record):
        raise ValueError(f"dtype={keys}: CUB's radix sort takes a record as keys only with a decomposer into its "
                         f"fields, which cooplink does not take (sort records with make_merge_sort_keys)")
    if not isinstance(radix_bits, (int, np.integer)) or isinstance(radix_bits, bool) or not 1 <= radix_bits <= 8:
        raise ValueError(f"radix_bits={radix_bits!r}: give an int from 1 to 8")
    kind = f"{'pairs' if values is not None else 'keys'}_{'desc' if descending else 'asc'}{'_striped' if striped else ''}"
    return Primitive("block_radix_sort", keys, block, check_items(items), f"r{int(radix_bits)}", None,
                     [Variant(kind, f"radix_sort_{kind}", optional_in=("begin_bit", "end_bit"))], values=values)


def _histogram(dtype, block, items, bins, algorithm, init):
    if not isinstance(dtype, types.Integer):
        raise ValueError(f"dtype={dtype}: a histogram's items are bin numbers, an integer type")
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool) or not 1 <= bins <= 4096:
        raise ValueError(f"bins={bins!r}: give an int from 1 to 4096")
    algorithm = check_algorithm("block_histogram", algorithm)
    v = "init_composite" if init else "composite"
    return Primitive("block_histogram", dtype, block, check_items(items), algorithm, None,
                     [Variant(v, f"histogram_{v}")], extra=f"b{int(bins)}")


def _radix_rank(dtype, block, items, radix_bits, descending):
    if isinstance(dtype, types.Record):
        raise ValueError(f"dtype={dtype}: CUB's radix rank reads a key's bits as an unsigned integer's; a record has "
                         f"no such bits")
    if not isinstance(radix_bits, (int, np.integer)) or isinstance(radix_bits, bool) or not 1 <= radix_bits <= 8:
        raise ValueError(f"radix_bits={radix_bits!r}: give an int from 1 to 8")
    v = "desc" if descending else "asc"
    return Primitive("block_radix_rank", dtype, block, check_items(items), f"r{int(radix_bits)}", None,
                     [Variant(v, f"radix_rank_{v}")])


def _run_length_decode(dtype, block, runs, decoded):
    return Primitive("block_run_length_decode", dtype, block, check_items(runs, "runs_per_thread"), None, None,
                     [Variant("decode", "run_length_decode"), Variant("decode_offsets", "run_length_decode_offsets")],
                     extra=f"d{check_items(decoded, 'decoded_items_per_thread')}")


def _discontinuity(dtype, block, items, mode, flag_op):
    op = _flag_op(flag_op, dtype)
    return Primitive("block_discontinuity", dtype, block, check_items(items), None, op,
                     [Variant(v, f"discontinuity_{v}_{op}") for v in _mode(_DISCONTINUITY, mode, "mode")])


def _adjacent_difference(dtype, block, items, direction, difference_op):
    op = _difference_op(difference_op, dtype)
    return Primitive("block_adjacent_difference", dtype, block, check_items(items), None, op,
                     [Variant(v, f"adjacent_difference_{v}_{op}") for v in _mode(_ADJACENT, direction, "direction")])


def _shuffle(dtype, block, items, mode):
    one = mode in ("offset", "rotate")  # one item a thread
    return Primitive("block_shuffle", dtype, block, 1 if one else check_items(items), None, None,
                     [Variant(v, f"shuffle_{v}", items=1 if one else None) for v in _mode(_SHUFFLE, mode, "mode")])


# ---------------------------------------------------------------- factories (cuda.coop 1.0.2)

def make_load(dtype, threads_per_block, items_per_thread=1, algorithm="direct"):
    """BlockLoad. In a kernel: load(src, items[, num_valid[, oob_default]][, temp_storage=])."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _load_store("block_load", nb, block, items, algorithm)


def make_store(dtype, threads_per_block, items_per_thread=1, algorithm="direct"):
    """BlockStore. In a kernel: store(dst, items[, num_valid][, temp_storage=])."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _load_store("block_store", nb, block, items, algorithm)


def make_reduce(dtype, threads_per_block, binary_op, items_per_thread=1, algorithm="warp_reductions",
                methods=None):
    """BlockReduce. In a kernel: agg = reduce(items) or reduce(item, num_valid); defined in thread 0."""
    _unsupported("methods", methods, "cooplink takes a user type as a record dtype (a numpy structured dtype) with a Python operator; methods= is not used")
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _reduce(nb, block, items, algorithm, op_name(binary_op if binary_op is not None else "sum", "binary_op", nb))


def make_sum(dtype, threads_per_block, items_per_thread=1, algorithm="warp_reductions", methods=None):
    return make_reduce(dtype, threads_per_block, "sum", items_per_thread, algorithm, methods)


def make_scan(dtype, threads_per_block, items_per_thread, initial_value=None, mode="exclusive", scan_op="+",
              block_prefix_callback_op=None, algorithm="raking", methods=None):
    """BlockScan. In a kernel: scan(items_in, items_out[, initial_value][, aggregate=][, running=]) or, with
    one item per thread, y = scan(x). An exclusive scan with no initial value starts from initial_value, else
    the operator's identity."""
    _unsupported("block_prefix_callback_op", block_prefix_callback_op,
                 "prefix callbacks are not supported; pass running=<one-element array> to the call, which "
                 "carries the total of earlier tiles")
    _unsupported("methods", methods, "cooplink takes a user type as a record dtype (a numpy structured dtype) with a Python operator; methods= is not used")
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    op = op_name(scan_op, "scan_op", nb)
    if initial_value is not None and op == "sum":
        raise ValueError("initial_value is not supported for inclusive and exclusive sums")
    if initial_value is not None and mode == "inclusive":
        raise ValueError("initial_value is not supported for inclusive scans")
    if op.startswith("custom_") and mode == "exclusive" and initial_value is None:
        raise ValueError(f"scan_op={getattr(scan_op, '__name__', scan_op)!r}: an exclusive scan with a Python "
                         f"function as its operator has no identity to start from: give initial_value=")
    return _scan(nb, block, items, algorithm, op, mode, initial_value)


def make_exclusive_sum(dtype, threads_per_block, items_per_thread, prefix_op=None, algorithm="raking",
                       methods=None):
    return make_scan(dtype, threads_per_block, items_per_thread, None, "exclusive", "+", prefix_op, algorithm,
                     methods)


def make_inclusive_sum(dtype, threads_per_block, items_per_thread, prefix_op=None, algorithm="raking",
                       methods=None):
    return make_scan(dtype, threads_per_block, items_per_thread, None, "inclusive", "+", prefix_op, algorithm,
                     methods)


def make_exclusive_scan(dtype, threads_per_block, scan_op, items_per_thread, initial_value=None, prefix_op=None,
                        algorithm="raking", methods=None):
    return make_scan(dtype, threads_per_block, items_per_thread, initial_value, "exclusive", scan_op, prefix_op,
                     algorithm, methods)


def make_inclusive_scan(dtype, threads_per_block, scan_op, items_per_thread, initial_value=None, prefix_op=None,
                        algorithm="raking", methods=None):
    return make_scan(dtype, threads_per_block, items_per_thread, initial_value, "inclusive", scan_op, prefix_op,
                     algorithm, methods)


def make_exchange(block_exchange_type, dtype, threads_per_block, items_per_thread, warp_time_slicing=False,
                  methods=None):
    """BlockExchange (cuda.coop 1.0.2's signature; every CUB mode). In a kernel: exchange(items_in[, items_out]
    [, ranks[, is_valid]]) (no items_out: in place; ranks for the scatters: each item's place in the block's
    tile, int32; is_valid for ScatterToStripedFlagged, int32)."""
    _unsupported("methods", methods, "cooplink takes a user type as a record dtype (a numpy structured dtype); "
                                     "methods= is not used")
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _exchange(nb, block, items, block_exchange_type, bool(warp_time_slicing))


def make_merge_sort_keys(dtype, threads_per_block, items_per_thread, compare_op, methods=None):
    """BlockMergeSort of keys (cuda.coop 1.0.2's signature). In a kernel: sort(keys[, num_valid,
    oob_default]) sorts the block's blocked tile in place, stably (with num_valid: its first num_valid items
    into its first places; as in CUB, the places after them are unspecified); compare_op: 'less', 'greater'
    or a Python function cmp(a, b), true when a goes before b."""
    _unsupported("methods", methods, "cooplink takes a user type as a record dtype (a numpy structured dtype); "
                                     "methods= is not used")
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _merge_sort(nb, None, block, items, compare_op)


def make_merge_sort_pairs(keys_dtype, values_dtype, threads_per_block, items_per_thread, compare_op):
    """BlockMergeSort of key-value pairs. In a kernel: sort(keys, values[, num_valid, oob_default])."""
    nb, block, items = _setup(keys_dtype, threads_per_block, items_per_thread)
    return _merge_sort(nb, numba_dtype(values_dtype, "values_dtype"), block, items, compare_op)


def make_radix_sort_keys(dtype, threads_per_block, items_per_thread, radix_bits=4, striped=False):
    """BlockRadixSort of keys, ascending (cuda.coop 1.0.2's name and first parameters). In a kernel: sort(keys[,
    begin_bit, end_bit]) sorts the block's blocked tile in place over the key bits [begin_bit, end_bit) (default:
    every bit), stably; striped=True leaves it striped (CUB's SortBlockedToStriped)."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _radix_sort(nb, None, block, items, False, striped, radix_bits)


def make_radix_sort_keys_descending(dtype, threads_per_block, items_per_thread, radix_bits=4, striped=False):
    """BlockRadixSort of keys, descending (cuda.coop 1.0.2's name). In a kernel: sort(keys[, begin_bit, end_bit])."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _radix_sort(nb, None, block, items, True, striped, radix_bits)


def make_radix_sort_pairs(keys_dtype, values_dtype, threads_per_block, items_per_thread, descending=False,
                          radix_bits=4, striped=False):
    """BlockRadixSort of key-value pairs. In a kernel: sort(keys, values[, begin_bit, end_bit])."""
    nb, block, items = _setup(keys_dtype, threads_per_block, items_per_thread)
    return _radix_sort(nb, numba_dtype(values_dtype, "values_dtype"), block, items, descending, striped, radix_bits)


def make_histogram(dtype, threads_per_block, items_per_thread, bins, algorithm="sort", init=True):
    """BlockHistogram (cooplink's). In a kernel: histo(items, histogram): each item a bin's number (0 to bins - 1),
    histogram `bins` uint32 counters (a shared array), zeroed first (init=True, CUB's Histogram) or added to
    (init=False, CUB's Composite); complete once every thread has returned and synchronized."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _histogram(nb, block, items, bins, algorithm, init)


def make_radix_rank(dtype, threads_per_block, items_per_thread, radix_bits=4, descending=False):
    """BlockRadixRank, as CUB has it (cooplink's name). In a kernel: rank(keys, ranks, begin_bit): ranks (int32)
    of the block's blocked keys by the digit of radix_bits bits of their raw bits from begin_bit, stably (raw bits:
    not the numeric order of signed or floating keys)."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _radix_rank(nb, block, items, radix_bits, descending)


def make_run_length_decode(dtype, threads_per_block, runs_per_thread, decoded_items_per_thread):
    """BlockRunLengthDecode (cooplink's). In a kernel: total = decode(run_values, run_lengths, decoded_items,
    from_offset) fills the thread's decoded_items_per_thread items of the window that starts at from_offset of
    the decoded sequence (blocked; run_lengths uint32, runs in order across the threads) and returns the
    sequence's length; decode(run_values, run_lengths, decoded_items, item_offsets, from_offset) also gives each
    item's place within its run. A window a call. As CUB, a run of length 0 may be followed only by runs of
    length 0."""
    nb, block, _ = _setup(dtype, threads_per_block, 1)
    return _run_length_decode(nb, block, runs_per_thread, decoded_items_per_thread)


def make_discontinuity(dtype, threads_per_block, items_per_thread, flag_op="ne", mode="heads"):
    """BlockDiscontinuity (cooplink's). mode 'heads': flags(head_flags, items[, tile_predecessor]); 'tails':
    flags(tail_flags, items[, tile_successor]); 'heads_tails': flags(head_flags, tail_flags, items[,
    tile_predecessor][, tile_successor=]). Flags are int32 arrays (1 where flag_op(item before, item)); the
    tile's first item is a head (its last a tail) unless a predecessor (successor) is given, thread 0's (the
    last thread's), as in CUB."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _discontinuity(nb, block, items, mode, flag_op)


def make_adjacent_difference(dtype, threads_per_block, items_per_thread, difference_op="sub", direction="left"):
    """BlockAdjacentDifference (cooplink's). 'left': diff(items_in, items_out[, valid][, tile_predecessor=]):
    each item op the one before it (the first kept, or op'd with the predecessor); 'right': diff(items_in,
    items_out[, valid][, tile_successor=]). With valid (CUB's partial tile), the items from valid on are kept."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _adjacent_difference(nb, block, items, direction, difference_op)


def make_shuffle(dtype, threads_per_block, items_per_thread=1, mode="up"):
    """BlockShuffle (cooplink's). 'offset': shuffle(item, out, distance), one item a thread, out a one-element
    array left unchanged where the thread `distance` places on does not exist; 'rotate': y = shuffle(item,
    distance), wrapping around the block; 'up' / 'down': shuffle(items_in,
    items_out[, block_suffix= / block_prefix=]) shifts the blocked tile by one place (thread 0's first / the
    last thread's last output unchanged)."""
    nb, block, items = _setup(dtype, threads_per_block, items_per_thread)
    return _shuffle(nb, block, items, mode)


# ---------------------------------------------------------------- calls with no factory

_CONFIG = ("threads", "algorithm", "items_per_thread", "op", "binary_op", "scan_op", "mode", "exchange_type",
           "warp_time_slicing", "compare_op", "flag_op",
           "difference_op", "descending", "striped", "radix_bits", "bins", "init")


def _literal(t, what, kinds):
    if t is None or isinstance(t, types.Omitted):
        return getattr(t, "value", None)
    if isinstance(t, types.StringLiteral) and str in kinds:
        return t.literal_value
    if isinstance(t, types.Dispatcher) and callable in kinds:  # a @cuda.jit device function: an operator
        return t.dispatcher
    if isinstance(t, types.IntegerLiteral) and int in kinds:
        return t.literal_value
    if isinstance(t, (types.UniTuple, types.Tuple)) and tuple in kinds and all(
            isinstance(x, types.IntegerLiteral) for x in t):
        return tuple(x.literal_value for x in t)
    if isinstance(t, (types.UniTuple, types.Tuple)) and tuple in kinds and hasattr(t, "literal_value"):
        return tuple(t.literal_value)
    raise ValueError(f"{what} must be a constant ({' or '.join(k.__name__ for k in kinds)}), got {t}")


def _call_shape(kws, name):
    threads = _literal(kws.get("threads"), f"{name}: threads", (int, tuple))
    from numba.cuda import launchconfig
    cfg = launchconfig.current_launch_config()
    if threads is not None:
        shape = block_shape(threads, f"{name}: threads")
        if cfg is not None:
            launch = tuple(cfg.blockdim) + (1,) * (3 - len(tuple(cfg.blockdim)))
            if launch != shape:
                raise ValueError(f"{name}: threads={threads!r}, but the kernel is launched with blockdim={launch}")
        return shape
    if cfg is None:
        raise ValueError(f"{name}: the block shape is not known: the kernel is compiled without a launch "
                         f"(an eager signature or cuda.compile); pass threads=")
    cfg.dispatcher.mark_launch_config_sensitive()
    return block_shape(tuple(cfg.blockdim), f"{name}: the launch's blockdim")


def _call_items(t, kws, name, arg):
    given = _literal(kws.get("items_per_thread"), f"{name}: items_per_thread", (int,))
    if isinstance(t, types.Array):
        known = getattr(t, "coop_count", None)
        if known is not None and given is not None and known != given:
            raise ValueError(f"{name}: items_per_thread={given}, but '{arg}' holds {known} items")
        items = known if known is not None else given
        if items is None:
            raise ValueError(f"{name}: items per thread cannot be read from '{arg}' (a cuda.local.array's "
                             f"type has no length): allocate it with coop.local.array(n, dtype) or pass "
                             f"items_per_thread=")
        return check_items(items, f"{name}: items_per_thread")
    return check_items(given or 1, f"{name}: items_per_thread")


def _dtype_of(t, name, arg):
    if isinstance(t, types.Array):
        return numba_dtype(t.dtype, f"{name}: '{arg}'")
    return numba_dtype(t, f"{name}: '{arg}'")


def _need(args, n, name, what):
    if len(args) < n:
        raise ValueError(f"{name}: missing argument{'s' if n - len(args) > 1 else ''}: {what}")


def _load_store_call(family):
    verb = family.split("_")[1]

    def make(args, kws):
        name = f"coop.block.{verb}"
        _need(args, 2, name, "the tile and the items array" if verb == "load" else "the tile and the items")
        nb = _dtype_of(args[1], name, "items")
        block = _call_shape(kws, name)
        items = _call_items(args[1], kws, name, "items")
        algo = _literal(kws.get("algorithm"), f"{name}: algorithm", (str,)) or "direct"
        return _load_store(family, nb, block, items, algo)
    return make


def _reduce_call(default_op):
    def make(args, kws):
        name = "coop.block.reduce" if default_op is None else "coop.block.sum"
        _need(args, 1, name, "the items")
        nb = _dtype_of(args[0], name, "items")
        block = _call_shape(kws, name)
        items = _call_items(args[0], kws, name, "items")
        op = default_op or op_name(_literal(kws.get("op", kws.get("binary_op")), f"{name}: op", (str, callable))
                                   or "sum", "op", nb)
        algo = _literal(kws.get("algorithm"), f"{name}: algorithm", (str,)) or "warp_reductions"
        return _reduce(nb, block, items, algo, op)
    return make


def _scan_call(mode, default_op):
    def make(args, kws):
        name = f"coop.block.{mode or 'scan'}"
        _need(args, 1, name, "the items")
        nb = _dtype_of(args[0], name, "items_in")
        block = _call_shape(kws, name)
        items = _call_items(args[0], kws, name, "items_in")
        m = mode or _literal(kws.get("mode"), f"{name}: mode", (str,)) or "exclusive"
        op = default_op or op_name(_literal(kws.get("op", kws.get("scan_op")), f"{name}: op", (str, callable))
                                   or "sum", "op", nb)
        algo = _literal(kws.get("algorithm"), f"{name}: algorithm", (str,)) or "raking"
        return _scan(nb, block, items, algo, op, m)
    return make


def _exchange_call(args, kws):
    name = "coop.block.exchange"
    _need(args, 1, name, "the items")
    nb = _dtype_of(args[0], name, "items_in")
    kind = _literal(kws.get("exchange_type"), f"{name}: exchange_type", (str, int)) or "striped_to_blocked"
    t = kws.get("warp_time_slicing")
    ts = t.literal_value if isinstance(t, types.BooleanLiteral) else _literal(t, f"{name}: warp_time_slicing", (int,))
    return _exchange(nb, _call_shape(kws, name), _call_items(args[0], kws, name, "items_in"), kind, bool(ts))


def _sort_call(args, kws):
    from .warp import sort_call_args
    name = "coop.block.merge_sort"
    keys, values, items, cmp = sort_call_args(args, kws, name)
    return _merge_sort(keys, values, _call_shape(kws, name), items, cmp)


def _discontinuity_call(mode):
    def make(args, kws):
        name = f"coop.block.flag_{mode.replace('heads_tails', 'heads_and_tails')}"
        k = 2 if mode == "heads_tails" else 1  # the items come after the flags
        _need(args, k + 1, name, "the flags and the items")
        nb = _dtype_of(args[k], name, "items")
        op = _literal(kws.get("flag_op", kws.get("op")), f"{name}: flag_op", (str, callable)) or "ne"
        return _discontinuity(nb, _call_shape(kws, name), _call_items(args[k], kws, name, "items"), mode, op)
    return make


def _adjacent_call(direction):
    def make(args, kws):
        name = f"coop.block.subtract_{direction}"
        _need(args, 2, name, "the items in and out")
        nb = _dtype_of(args[0], name, "items_in")
        op = _literal(kws.get("difference_op", kws.get("op")), f"{name}: difference_op", (str, callable)) or "sub"
        return _adjacent_difference(nb, _call_shape(kws, name), _call_items(args[0], kws, name, "items_in"),
                                    direction, op)
    return make


def _radix_call(args, kws):
    name = "coop.block.radix_sort"
    _need(args, 1, name, "the keys")
    keys = _dtype_of(args[0], name, "keys")
    values = _dtype_of(args[1], name, "values") if len(args) > 1 and isinstance(args[1], types.Array) else None
    desc = _literal(kws.get("descending"), f"{name}: descending", (int,)) if not isinstance(
        kws.get("descending"), types.BooleanLiteral) else kws["descending"].literal_value
    striped = kws["striped"].literal_value if isinstance(kws.get("striped"), types.BooleanLiteral) else \
        _literal(kws.get("striped"), f"{name}: striped", (int,))
    bits = _literal(kws.get("radix_bits"), f"{name}: radix_bits", (int,)) or 4
    return _radix_sort(keys, values, _call_shape(kws, name), _call_items(args[0], kws, name, "keys"), bool(desc),
                       bool(striped), bits)


def _histogram_call(args, kws):
    name = "coop.block.histogram"
    _need(args, 2, name, "the items and the histogram")
    nb = _dtype_of(args[0], name, "items")
    t = args[1]
    bins = getattr(t, "coop_count", None) if isinstance(t, types.Array) else None
    bins = _literal(kws.get("bins"), f"{name}: bins", (int,)) or bins
    if bins is None:
        raise ValueError(f"{name}: the bins cannot be read from the histogram (a cuda.shared.array's type has no "
                         f"length): pass bins=")
    init = kws["init"].literal_value if isinstance(kws.get("init"), types.BooleanLiteral) else \
        _literal(kws.get("init"), f"{name}: init", (int,))
    algo = _literal(kws.get("algorithm"), f"{name}: algorithm", (str,)) or "sort"
    return _histogram(nb, _call_shape(kws, name), _call_items(args[0], kws, name, "items"), bins, algo,
                      True if init is None else bool(init))


def _rank_call(args, kws):
    name = "coop.block.radix_rank"
    _need(args, 3, name, "the keys, the ranks and begin_bit")
    nb = _dtype_of(args[0], name, "keys")
    desc = kws["descending"].literal_value if isinstance(kws.get("descending"), types.BooleanLiteral) else \
        _literal(kws.get("descending"), f"{name}: descending", (int,))
    bits = _literal(kws.get("radix_bits"), f"{name}: radix_bits", (int,)) or 4
    return _radix_rank(nb, _call_shape(kws, name), _call_items(args[0], kws, name, "keys"), bits, bool(desc))


def _rld_call(args, kws):
    name = "coop.block.run_length_decode"
    _need(args, 3, name, "the run values, the run lengths and the decoded items")
    nb = _dtype_of(args[0], name, "run_values")
    runs = _call_items(args[0], {}, name, "run_values")
    decoded = _call_items(args[2], {}, name, "decoded_items")
    return _run_length_decode(nb, _call_shape(kws, name), runs, decoded)


def _shuffle_call(args, kws):
    name = "coop.block.shuffle"
    _need(args, 2, name, "the items (and the output or distance)")
    nb = _dtype_of(args[0], name, "items_in")
    mode = _literal(kws.get("mode"), f"{name}: mode", (str,)) or "up"
    items = 1 if mode in ("offset", "rotate") else _call_items(args[0], kws, name, "items_in")
    return _shuffle(nb, _call_shape(kws, name), items, mode)


def _stub(name, doc):
    return _extension.call_stub(__name__, f"coop.block.{name}", name, doc)


load = _stub("load", "load(src, items[, valid[, oob_default]], threads=, algorithm=, items_per_thread=, "
                     "temp_storage=)")
store = _stub("store", "store(dst, items[, valid], threads=, algorithm=, items_per_thread=, temp_storage=)")
reduce = _stub("reduce", "agg = reduce(items, op='sum'[, valid_threads]...): defined in thread 0")
sum = _stub("sum", "agg = sum(items[, valid_threads]...): defined in thread 0")
exclusive_scan = _stub("exclusive_scan", "exclusive_scan(items_in, items_out[, initial], op=, aggregate=, running=)")
inclusive_scan = _stub("inclusive_scan", "inclusive_scan(items_in, items_out, op=, aggregate=, running=)")
exclusive_sum = _stub("exclusive_sum", "exclusive_sum(items_in, items_out, aggregate=, running=)")
inclusive_sum = _stub("inclusive_sum", "inclusive_sum(items_in, items_out, aggregate=, running=)")
scan = _stub("scan", "scan(items_in, items_out, mode='exclusive', op='sum', ...)")
exchange = _stub("exchange", "exchange(items_in[, items_out][, ranks[, is_valid]], exchange_type='striped_to_blocked', "
                             "warp_time_slicing=False, threads=)")
merge_sort = _stub("merge_sort", "merge_sort(keys[, values][, num_valid, oob_default], compare_op='less', threads=)")
radix_rank = _stub("radix_rank", "radix_rank(keys, ranks, begin_bit, radix_bits=4, descending=False, threads=)")
histogram = _stub("histogram", "histogram(items, histogram, bins=, algorithm='sort', init=True, threads=)")
run_length_decode = _stub("run_length_decode", "total = run_length_decode(run_values, run_lengths, decoded_items"
                                                "[, item_offsets], from_offset, threads=)")
radix_sort = _stub("radix_sort", "radix_sort(keys[, values][, begin_bit, end_bit], descending=False, striped=False, "
                                 "radix_bits=4, threads=)")
flag_heads = _stub("flag_heads", "flag_heads(head_flags, items[, tile_predecessor], flag_op='ne', threads=)")
flag_tails = _stub("flag_tails", "flag_tails(tail_flags, items[, tile_successor], flag_op='ne', threads=)")
flag_heads_and_tails = _stub("flag_heads_and_tails", "flag_heads_and_tails(head_flags, tail_flags, items[, "
                                                     "tile_predecessor][, tile_successor=], flag_op='ne', threads=)")
subtract_left = _stub("subtract_left", "subtract_left(items_in, items_out[, valid][, tile_predecessor=], "
                                       "difference_op='sub', threads=)")
subtract_right = _stub("subtract_right", "subtract_right(items_in, items_out[, valid][, tile_successor=], "
                                         "difference_op='sub', threads=)")
shuffle = _stub("shuffle", "shuffle(items_in, items_out[, block_suffix= / block_prefix=], mode='up', threads=); "
                           "shuffle(item, out, distance, mode='offset'); y = shuffle(item, distance, mode='rotate')")

for _fn, _maker in ((load, _load_store_call("block_load")), (store, _load_store_call("block_store")),
                    (reduce, _reduce_call(None)), (sum, _reduce_call("sum")),
                    (exclusive_scan, _scan_call("exclusive", None)), (inclusive_scan, _scan_call("inclusive", None)),
                    (exclusive_sum, _scan_call("exclusive", "sum")), (inclusive_sum, _scan_call("inclusive", "sum")),
                    (scan, _scan_call(None, None)), (exchange, _exchange_call), (merge_sort, _sort_call),
                    (flag_heads, _discontinuity_call("heads")), (flag_tails, _discontinuity_call("tails")),
                    (flag_heads_and_tails, _discontinuity_call("heads_tails")),
                    (subtract_left, _adjacent_call("left")), (subtract_right, _adjacent_call("right")),
                    (shuffle, _shuffle_call), (radix_sort, _radix_call), (histogram, _histogram_call),
                    (run_length_decode, _rld_call), (radix_rank, _rank_call)):
    _extension.register_single_phase(_fn, _maker, _CONFIG)
