"""A configured primitive (one CUB instance: family, type, block, items, algorithm, op) and the variants a
call may pick (plain or guarded, full or partial, with or without a running prefix). Its ABI comes from
the manifests libcooplink resolves; nothing here lists a family's parameters."""

import hashlib

import numpy as np
from numba.cuda import types
from numba.cuda.core import errors

from .. import _abi, _lib
from . import _bind, _extension

# cuda.coop's algorithm names -> the ABI's
ALGORITHM_ALIASES = {
    "warp_transpose_timesliced": "warp_transpose_ts",
    "raking_commutative_only": "raking_comm",
}


def check_algorithm(family, algorithm, threads=None):
    """The ABI name of a family's algorithm (cuda.coop's long names taken), checked against what the generator
    takes (libcooplink's coop_gen_describe): ValueError naming the family's algorithms, or, with threads, the
    thread count an algorithm needs (a multiple of 32: CUB's warp-transposing ones)."""
    a = str(algorithm).lower()
    a = ALGORITHM_ALIASES.get(a, a)
    algos = {x["name"]: x for x in _lib.families()[family]["algorithms"]}
    if a not in algos:
        longer = ", ".join(f"{k!r}" for k, v in ALGORITHM_ALIASES.items() if v in algos)
        raise ValueError(f"algorithm={algorithm!r} is not a {family.replace('_', ' ')} algorithm (use "
                         f"{', '.join(repr(x) for x in algos)}{', or ' + longer if longer else ''})")
    if threads is not None and algos[a]["warp_multiple"] and threads % 32:
        raise ValueError(f"algorithm={algorithm!r} needs a thread count that is a multiple of 32, got {threads}")
    return a


# operator spellings (cuda.coop's and numpy's) -> the ABI's op names
_OP_NAMES = {
    "+": "sum", "add": "sum", "plus": "sum", "sum": "sum",
    "*": "prod", "mul": "prod", "multiplies": "prod", "prod": "prod",
    "min": "min", "minimum": "min", "max": "max", "maximum": "max",
    "&": "and", "bit_and": "and", "and": "and", "|": "or", "bit_or": "or", "or": "or",
    "^": "xor", "bit_xor": "xor", "xor": "xor",
}


def _callable_ops():
    import operator
    out = {operator.add: "sum", operator.mul: "prod", operator.and_: "and", operator.or_: "or",
           operator.xor: "xor", min: "min", max: "max", np.add: "sum", np.multiply: "prod",
           np.minimum: "min", np.maximum: "max", np.fmin: "min", np.fmax: "max", np.bitwise_and: "and",
           np.bitwise_or: "or", np.bitwise_xor: "xor"}
    return out


_CALLABLE_OPS = _callable_ops()


def op_name(op, what="binary_op", dtype=None):
    """The ABI op of a string or callable, or ValueError naming it. Any other Python function (with the
    element type known) is a custom operator: "custom_<its C name>"."""
    if isinstance(op, str):
        name = _OP_NAMES.get(op.lower())
    else:
        try:
            name = _CALLABLE_OPS.get(op)
        except TypeError:
            name = None
        if name is None and op is not None and callable(op):
            if dtype is None:
                raise ValueError(f"{what}={getattr(op, '__name__', op)!r}: a Python function as the operator needs "
                                 f"the element type")
            from . import _custom
            _custom.check_arity(op, dtype, what)
            return _custom.custom_op(op, type_code(dtype)).spelling
    if name is None:
        raise ValueError(f"{what}={op!r} is not a known operator (use 'sum', 'prod', 'min', 'max', 'and', 'or', "
                         f"'xor', their cuda.coop spellings such as '+' or 'bit_and', or operator/numpy functions)")
    return name


def predicate_name(op, dtype, what, names, noun, use, record_why):
    """The ABI name of a predicate op, int op(a, b) (a sort's ordering, a discontinuity's flag): one of `names`
    (a spelling -> the ABI's name; operator.lt/gt/ne/eq spell less/greater/ne/eq), or any other Python function,
    a custom op. `use` says what is accepted, `record_why` why a record takes a Python function only."""
    import operator
    if not isinstance(op, str):
        op = {operator.lt: "less", operator.gt: "greater", operator.ne: "ne", operator.eq: "eq"}.get(op, op)
    if isinstance(op, str):
        name = names.get(op.lower())
        if name is None:
            raise ValueError(f"{what}={op!r}: {use}")
        if isinstance(dtype, types.Record):
            raise ValueError(f"{what}={op!r} with dtype={dtype}: {record_why}")
        return name
    if callable(op):
        from . import _custom
        _custom.check_arity(op, dtype, what, comparator=True)
        return _custom.custom_op(op, type_code(dtype), comparator=True).spelling
    raise ValueError(f"{what}={op!r} is not a {noun}")


def numba_dtype(dtype, what="dtype"):
    """A numba type from a numpy dtype, a numba type or a name."""
    from numba import from_dtype
    if isinstance(dtype, types.NumberClass):
        dtype = dtype.instance_type
    if isinstance(dtype, types.Type):
        nb = dtype
    elif isinstance(dtype, str) and dtype.lower() in ("bfloat16", "bf16"):
        nb = types.bfloat16
    else:
        name = dtype[3:] if isinstance(dtype, str) and dtype.startswith("np.") else dtype
        try:
            nb = from_dtype(np.dtype(name))
        except (TypeError, NotImplementedError) as e:
            raise ValueError(f"{what}={dtype!r} is not a dtype cooplink supports ({e})") from None
    type_code(nb, what)
    return nb


def user_type(nb):
    """A record dtype as a cooplink user type (name, size, align): named after its layout, so that
    records of one layout share symbols and others never clash."""
    from numba.np.numpy_support import as_dtype
    npd = np.dtype(as_dtype(nb))
    if npd.itemsize > 1024:
        raise ValueError(f"dtype={nb}: a record of {npd.itemsize} bytes; cooplink's user types have at most 1024")
    align = npd.alignment if npd.itemsize % npd.alignment == 0 else 1
    layout = repr((npd.descr, npd.itemsize, align))
    decl = (f"rec{hashlib.sha256(layout.encode()).hexdigest()[:12]}", npd.itemsize, align)
    USER_TYPES[decl[0]] = decl
    _bind.RECORDS[decl[0]] = nb
    return decl


USER_TYPES = {}  # every user type made so far: name -> (name, size, align)


def type_code(nb, what="dtype"):
    if isinstance(nb, types.Record):
        return user_type(nb)[0]
    if nb == getattr(types, "bfloat16", None):
        return "bf16"
    try:
        return _abi.type_code(str(nb) if str(nb) != "float16" else "float16")
    except _abi.ABIError:
        raise ValueError(f"{what}={nb}: unsupported type (cooplink has int8..int64, uint8..uint64, float16, "
                         f"bfloat16, float32, float64)") from None


def block_shape(threads, what="threads_per_block"):
    """(x, y, z) from an int or a 2/3-tuple, checked against CUDA's limits."""
    if isinstance(threads, (int, np.integer)) and not isinstance(threads, bool):
        shape = (int(threads), 1, 1)
    elif isinstance(threads, tuple) and len(threads) in (2, 3) and all(
            isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in threads):
        shape = tuple(int(t) for t in threads) + (1,) * (3 - len(threads))
    elif hasattr(threads, "x") and hasattr(threads, "y") and hasattr(threads, "z"):
        shape = (int(threads.x), int(threads.y), int(threads.z))
    else:
        raise ValueError(f"{what}={threads!r}: give an int or a 2- or 3-tuple of ints")
    n = shape[0] * shape[1] * shape[2]
    if min(shape) < 1:
        raise ValueError(f"{what}={threads!r}: every dimension must be at least 1")
    if n > 1024:
        raise ValueError(f"{what}={threads!r}: {n} threads; a CUDA block has at most 1024")
    if shape[2] > 64:
        raise ValueError(f"{what}={threads!r}: the z dimension is at most 64")
    return shape


def check_items(items, what="items_per_thread"):
    if not isinstance(items, (int, np.integer)) or isinstance(items, bool) or not 1 <= items <= 32:
        raise ValueError(f"{what}={items!r}: give an int from 1 to 32")
    return int(items)


class Variant:
    """One C function a call may use: its stem in the symbol, items fixed by the ABI (the partial reduce
    takes one item), the `in` parameters a call may leave out."""

    def __init__(self, name, stem, items=None, optional_in=()):
        self.name, self.stem, self.items, self.optional_in = name, stem, items, tuple(optional_in)


def check_lanes(lanes, what="threads_in_warp"):
    if not isinstance(lanes, (int, np.integer)) or isinstance(lanes, bool) or not 1 <= lanes <= 32:
        raise ValueError(f"{what}={lanes!r}: a logical warp has 1 to 32 threads")
    return int(lanes)


class Primitive:
    """A configured primitive; callable inside @cuda.jit kernels (typing and lowering in _extension).
    A block primitive has a block shape and items per thread; a warp primitive (lanes=L) works on the
    logical warps of L threads of any block."""

    def __init__(self, family, dtype, block, items, algorithm, op, variants, initial=None, lanes=None,
                 warp_items=False, values=None, extra=None):
        self.family, self.dtype, self.block, self.items = family, dtype, block, items
        self.algorithm, self.op, self.variants, self.initial = algorithm, op, variants, initial
        self.lanes, self.values = lanes, values
        self.code = type_code(dtype)
        if values is not None:  # a sort of pairs: the value type's code follows the key's
            self.code = f"{self.code}_{type_code(values)}"
        self.user_types = tuple(user_type(t) for t in (dtype, values) if isinstance(t, types.Record))
        if isinstance(dtype, types.Record) and initial is not None:  # a record (or a tuple of its fields)
            from numba.np.numpy_support import as_dtype
            try:
                self.initial = initial = np.array(initial, dtype=np.dtype(as_dtype(dtype))).tobytes()
            except (TypeError, ValueError) as e:
                raise ValueError(f"initial_value={initial!r} is not a record of {dtype} ({e})") from None
        from . import _custom
        self.custom = _custom.BY_SPELLING.get(op) if isinstance(op, str) else None
        if isinstance(dtype, types.Record) and op is not None and self.custom is None:
            raise ValueError(f"binary_op={op!r} with dtype={dtype}: cooplink has no arithmetic on a record; give "
                             f"a Python function op(a, b, out) that writes a op b into out")
        if op in _abi.BITWISE_OPS and self.code not in _abi.INTEGER_CODES:
            raise ValueError(f"binary_op='{op}' is a bitwise operator; dtype={dtype} is not an integer type")
        if lanes is not None:
            self.symbols = {v.name: _abi.warp_symbol(v.stem, self.code, lanes, items if warp_items else None,
                                                     algorithm) for v in variants}
        else:
            self.symbols = {v.name: _abi.block_symbol(v.stem, self.code, block, v.items or items, algorithm, extra)
                            for v in variants}
        self.name = self.symbols[variants[0].name][len("coop_"):]
        self.key = ("cooplink", family, self.code, block, items, algorithm, op, initial,
                    tuple(v.name for v in variants), lanes, extra)

    # -- host side (cuda.coop's attributes)
    def _entry(self, variant=None, arch=None):
        arch = arch or _extension.current_arch()
        resolved = _lib.resolve(list(self.symbols.values()), arch, types=self.user_types)
        sym = self.symbols[variant or self.variants[0].name]
        return resolved[sym].symbols[sym], resolved[sym]

    @property
    def temp_storage_bytes(self):
        return self._entry()[0]["temp_bytes"]

    @property
    def temp_storage_alignment(self):
        return max(1, self._entry()[0]["temp_align"])

    @property
    def files(self):
        """What cuda.coop kernels pass as link=: nothing is needed, the call attaches its code."""
        return []

    def __call__(self, *args, **kws):
        raise RuntimeError(f"{self.name} is only callable inside a @cuda.jit kernel")

    def __repr__(self):
        return f"<cooplink {self.name}>"

    # -- typing
    def check_launch(self):
        from numba.cuda import launchconfig
        cfg = launchconfig.current_launch_config()
        if cfg is None:
            return
        launch = tuple(cfg.blockdim) + (1,) * (3 - len(tuple(cfg.blockdim)))
        if self.lanes is not None:
            self.check_warps(launch)
            return
        if launch != self.block:
            raise _bind.BindError(f"{self.name}: made for threads_per_block={self.block}, but the kernel is "
                                  f"launched with blockdim={launch}")

    def bind(self, args, kws, arch):
        self.check_launch()
        resolved = _lib.resolve(list(self.symbols.values()), arch, types=self.user_types)
        failures = []
        for v in self.variants:
            sym = self.symbols[v.name]
            entry = resolved[sym].symbols[sym]
            try:
                b = _bind.bind(entry, self.dtype, args, kws, optional_in=v.optional_in)
            except _bind.BindError as e:
                failures.append(e)
                continue
            return _extension.CallSig(self, v.name, b, resolved[sym])
        # the most telling failure: the first that is not about the number or names of arguments
        for e in failures:
            text = str(e)
            if "positional argument" not in text and "unexpected argument" not in text and "missing" not in text:
                raise e
        raise failures[0]

    def check_warps(self, launch):
        """A block of whole logical warps: CUB's logical warps do not span hardware warps, so for a lane
        count that does not divide 32 the last hardware warp must also end on a whole logical warp (and
        the lanes after the last whole one in each full hardware warp must not call)."""
        n, lanes = launch[0] * launch[1] * launch[2], self.lanes
        tail = n % 32 if 32 % lanes else n
        if tail % lanes:
            raise _bind.BindError(f"{self.name}: logical warps of {lanes} threads, but the kernel is launched "
                                  f"with blockdim={launch} ({n} threads"
                                  f"{f', {tail} in the last hardware warp' if 32 % lanes else ''}), which is "
                                  f"not a whole number of them")

    # -- lowering
    def default_value(self, name):
        if name == "initial":
            if self.initial is not None:
                return self.initial
            return identity(self.op, self.dtype)
        if name == "end_bit":  # every bit of the key
            from numba.np.numpy_support import as_dtype
            return 16 if self.code.split("_")[0] == "bf16" else 8 * np.dtype(as_dtype(self.dtype)).itemsize
        return 0

    def scope_barrier(self, builder):
        if self.lanes is not None:
            _extension.warp_barrier(builder, self.lanes)
        else:
            _extension.barrier(builder)

    def auto_temp(self, builder, entry):
        """The temp storage of a call given none: a block's shared array, or the calling logical warp's
        slot of an array with one slot per logical warp of the largest block (1024 threads)."""
        if self.lanes is None:
            return builder.addrspacecast(_extension.auto_temp_storage(builder.module, entry), _extension.I8P,
                                         "generic")
        per_hw = 32 // self.lanes
        return _extension.warp_temp_slot(builder, entry, self.lanes, 32 * per_hw)


def identity(op, dtype):
    """The identity of op for dtype: the exclusive scan's initial value when none is given."""
    code = type_code(dtype)
    if isinstance(dtype, types.Record):
        raise errors.TypingError(f"an exclusive scan of records has no identity to start from: give "
                                 f"initial_value= (a numpy record of {dtype}), or the call's initial value")
    if op in (None, "sum", "or", "xor"):
        return 0
    if op == "prod":
        return 1
    if isinstance(op, str) and op.startswith("custom_"):
        raise errors.TypingError("an exclusive scan with a Python function as its operator has no identity to "
                                 "start from: give initial_value= (or the call's initial value)")
    if code in ("f16", "bf16", "f32", "f64"):
        return float("inf") if op == "min" else float("-inf")
    info = np.iinfo(np.dtype(str(dtype)))
    if op == "min":
        return int(info.max)
    if op == "max":
        return int(info.min)
    if op == "and":
        return -1 if info.min < 0 else int(info.max)
    raise errors.TypingError(f"no identity for op {op}")


_extension.register_primitive_class(Primitive)
