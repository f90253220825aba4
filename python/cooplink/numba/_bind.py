"""Binding a call's arguments to a primitive's C parameters, read from its manifest entry.

The manifest lists each parameter with its kind (in, out, inout, int, temp), and for element parameters
its shape (tile: the block's tile in memory; items: the thread's items; one: one element) and count. The
Python call takes the parameters in manifest order, by position or by name, except:
- `temp` (temp_storage=), which may also come first, as in cuda.coop; when absent the call allocates it;
- an `out` of one element is returned (the reduce's aggregate), or, when the manifest marks it nullable
  (the scan's aggregate), written to a one-element array given by name, else not computed;
- an `items` parameter of one item takes a scalar (in) or is returned when not given (out), as cuda.coop's
  items_per_thread == 1 forms do;
- an `in` of one element or an int that is optional (a default from the family: the oob default, the
  initial value, a radix sort's bit range) may be left out;
- an `out` of several items left out, right after an `in` of items of the same type, is written in place
  into that array (cuda.coop's exchange(temp_storage, items)).
Nothing here knows a family: the rules follow from the parameter list.
"""

from numba.cuda import types

# Python names accepted for the ABI's parameter names (cuda.coop's names and short forms)
ALIASES = {
    "num_valid": ("valid", "valid_threads", "valid_lanes"), "valid_items": ("valid", "valid_lanes"),
    "num_valid_threads": "valid_threads", "num_valid_lanes": "valid_lanes",
    "initial_value": "initial", "block_aggregate": "aggregate", "prefix": "running",
    "temp_storage": "temp", "src": "tile_src", "dst": "tile_dst", "input": "items_in", "output": "items_out",
    "tile_predecessor_item": "tile_predecessor", "tile_successor_item": "tile_successor",
}


def canonical(name, params):
    """The ABI parameter a call's keyword names: itself, or the first of its aliases the primitive has."""
    alias = ALIASES.get(name)
    if alias is None:
        return name
    candidates = alias if isinstance(alias, tuple) else (alias,)
    for c in candidates:
        if any(p["name"] == c for p in params):
            return c
    return candidates[0]


class BindError(TypeError):
    """A call that does not fit the primitive: the message names the argument and what it got."""


class Arg:
    """How one C parameter is fed: source is 'arg' (index into the folded call arguments), 'null',
    'return', 'alloc' (temp allocated by the call), 'default' (value)."""

    def __init__(self, param, source, index=None, value=None):
        self.param, self.source, self.index, self.value = param, source, index, value

    def __repr__(self):
        return f"Arg({self.param['name']}, {self.source}, {self.index})"


class Binding:
    def __init__(self, entry, args, names, return_param, explicit_temp):
        self.entry = entry            # the manifest's symbol entry
        self.args = args              # [Arg] in C parameter order
        self.names = names            # the folded call's parameter names, in order (the pysig)
        self.return_param = return_param
        self.explicit_temp = explicit_temp


def _is_array(t):
    return isinstance(t, types.Array)


def _is_scalar(t):
    """One element's value: a number, or a record (a user type)."""
    return isinstance(t, (types.Number, types.Boolean, types.Record)) or type(t).__name__ in ("Bfloat16",)


def _scalar_fits(t, dtype):
    """A scalar for an element of dtype: a record only for its own record type (no conversion)."""
    if isinstance(dtype, types.Record) or isinstance(t, types.Record):
        return t == dtype
    return _is_scalar(t)


def _tname(t):
    return str(t)


RECORDS = {}  # user type name -> its numba Record type (registered by _primitive.user_type)
_CODES = {"i8": types.int8, "i16": types.int16, "i32": types.int32, "i64": types.int64, "u8": types.uint8,
          "u16": types.uint16, "u32": types.uint32, "u64": types.uint64, "f16": types.float16,
          "bf16": getattr(types, "bfloat16", None), "f32": types.float32, "f64": types.float64}


def param_dtype(p, dtype):
    """The element type of parameter p, from its type code in the manifest (an exchange's ranks are i32, a
    sort's values their own type); the primitive's dtype where the manifest gives none."""
    code = p.get("type")
    if code is None:
        return dtype
    return _CODES.get(code) or RECORDS.get(code) or dtype


def element_check(symbol, pname, p, t, dtype):
    """Raises BindError unless type t fits element parameter p."""
    dtype = param_dtype(p, dtype)
    shape = p.get("shape")
    where = f"{symbol}: argument '{pname}'"
    if shape == "one" and p["kind"] == "in":
        if _is_array(t):
            raise BindError(f"{where} must be a scalar of {dtype}, got an array ({_tname(t)})")
        if not _scalar_fits(t, dtype):
            raise BindError(f"{where} must be a scalar of {dtype}, got {_tname(t)}")
        return
    if shape == "items" and p["kind"] == "in" and p["count"] == 1 and _is_scalar(t):
        if not _scalar_fits(t, dtype):
            raise BindError(f"{where} must be a scalar of {dtype}, got {_tname(t)}")
        return
    if not _is_array(t):
        what = "the block's tile (a device or shared array)" if shape == "tile" else \
            f"an array of {p['count']} {dtype} items (cuda.local.array)" if shape == "items" else \
            f"a one-element array of {dtype}"
        raise BindError(f"{where} must be {what}, got a scalar ({_tname(t)})" if _is_scalar(t) else
                        f"{where} must be {what}, got {_tname(t)}")
    if t.ndim != 1:
        raise BindError(f"{where} must be a 1-D array, got {t.ndim}-D ({_tname(t)})")
    bf16_bits = shape == "tile" and str(dtype) == "__nv_bfloat16" and t.dtype == types.uint16
    if t.dtype != dtype and not bf16_bits:  # numpy has no bfloat16: a bf16 tile may be given as its bits
        raise BindError(f"{where} must hold {dtype}, got an array of {t.dtype}")
    if p["kind"] in ("out", "inout") and not t.mutable:
        raise BindError(f"{where} is written, but the array is read-only")
    known = getattr(t, "coop_count", None)
    if shape == "items" and known is not None and known != p["count"]:
        raise BindError(f"{where}: the array holds {known} items per thread, the primitive takes "
                        f"items_per_thread={p['count']}")
    if shape == "one" and known is not None and known < 1:
        raise BindError(f"{where}: the array is empty")


def temp_check(symbol, entry, t):
    where = f"{symbol}: temp_storage"
    if not _is_array(t):
        raise BindError(f"{where} must be a shared array (cuda.shared.array or coop.shared.array), got {_tname(t)}")
    nbytes = getattr(t, "coop_nbytes", None)
    align = getattr(t, "coop_align", None)
    if align is None:
        align = t.dtype.bitwidth // 8 if hasattr(t.dtype, "bitwidth") else 1
    need, need_align = entry["temp_bytes"], entry["temp_align"]
    if nbytes is not None and nbytes < need:
        raise BindError(f"{where} holds {nbytes} bytes; the primitive needs {need} (temp_storage_bytes)")
    if align < need_align:
        known = "" if getattr(t, "coop_align", None) is not None else \
            " (a cuda.shared.array's type records neither its size nor an alignment= given to it)"
        raise BindError(f"{where} is aligned to {align} bytes{known}; the primitive needs {need_align} "
                        f"(temp_storage_alignment): allocate it with "
                        f"coop.shared.array({need}, alignment={need_align})")


def bind(entry, dtype, args, kws, optional_in=()):
    """Binds a call; a first argument that is an array of bytes is taken as the temp storage (cuda.coop's
    form) when the call does not bind without it that way."""
    temp_first = (not any(canonical(k, entry["params"]) == "temp" for k in kws) and args and _is_array(args[0])
                  and args[0].dtype == types.uint8 and any(p["kind"] == "temp" for p in entry["params"]))
    try:
        return _bind(entry, dtype, args, kws, optional_in, False)
    except BindError as plain:
        if not temp_first:
            raise
        try:
            return _bind(entry, dtype, args, kws, optional_in, True)
        except BindError as with_temp:
            # the temp storage's own problem (size, alignment) is the telling one; else the plain reading's
            raise (with_temp if "temp_storage" in str(with_temp) else plain) from None


def _bind(entry, dtype, args, kws, optional_in, first_is_temp):
    """Binds a call (argument types `args`, keyword types `kws`) to the manifest entry. `optional_in`:
    names of `in` parameters of one element that may be left out (filled by defaults in lowering).
    Returns a Binding or raises BindError."""
    symbol = entry["name"]
    params = entry["params"]
    spelled = {canonical(k, params): k for k in kws}  # the names as the call wrote them (numba folds by them)
    kws = {canonical(k, params): v for k, v in kws.items()}
    for k in list(kws):
        if not any(p["name"] == k for p in params):
            names = ", ".join(p["name"] for p in params)
            raise BindError(f"{symbol}: unexpected argument '{k}' (the parameters are {names})")
    positional = list(args)
    names, order = [], []
    explicit_temp = None
    user_params = [p for p in params if p["kind"] != "temp"]
    def takes_positional(p):
        return not (p["kind"] == "out" and p.get("shape") == "one")
    n_positional_params = sum(1 for p in user_params if takes_positional(p))
    if first_is_temp:
        explicit_temp = positional[0]
        names.append("temp_storage")
        order.append(("temp", 0))
        positional = positional[1:]
    bound, c_args, return_param = {}, [], None
    pos = 0
    for p in user_params:
        if pos < len(positional) and takes_positional(p):
            bound[p["name"]] = ("arg", len(names))
            names.append(p["name"])
            order.append((p["name"], positional[pos]))
            pos += 1
        elif p["name"] in kws:
            bound[p["name"]] = ("kw", p["name"])
    if pos < len(positional):
        raise BindError(f"{symbol}: takes {n_positional_params} positional argument"
                        f"{'' if n_positional_params == 1 else 's'}, got {len(positional)}")
    for k, t in kws.items():
        if k == "temp":
            continue
        if bound.get(k, ("kw",))[0] == "arg":
            raise BindError(f"{symbol}: argument '{k}' given twice")
        bound[k] = ("arg", len(names))
        names.append(spelled[k])
        order.append((k, t))
    types_by_name = {n: t for n, t in order}
    for p in params:
        name = p["name"]
        if p["kind"] == "temp":
            t = explicit_temp if explicit_temp is not None else kws.get("temp")
            if t is not None:
                temp_check(symbol, entry, t)
                if explicit_temp is None:
                    names.append(spelled["temp"])
                    order.append(("temp", t))
                    idx = len(names) - 1
                else:
                    idx = 0
                c_args.append(Arg(p, "arg", idx))
            else:
                c_args.append(Arg(p, "alloc" if entry["temp_bytes"] else "null"))
            continue
        src = bound.get(name)
        prev = params[params.index(p) - 1] if params.index(p) else None
        if src is None and p["kind"] == "out" and p.get("shape") == "items" and p["count"] > 1 and prev is not None \
                and prev["kind"] == "in" and prev.get("shape") == "items" and prev.get("type") == p.get("type") \
                and bound.get(prev["name"], ("",))[0] == "arg":
            t = types_by_name[prev["name"]]  # in place: the items in are written
            element_check(symbol, prev["name"], p, t, dtype)
            c_args.append(Arg(p, "arg", bound[prev["name"]][1]))
            continue
        if src is None:
            if p["kind"] == "out" and p.get("shape") == "one" and p.get("nullable"):
                c_args.append(Arg(p, "null"))
            elif p["kind"] == "out" and (p.get("shape") == "one" or (p.get("shape") == "items" and p["count"] == 1)) \
                    and return_param is None:
                return_param = p
                c_args.append(Arg(p, "return"))
            elif (p["kind"] == "in" and p.get("shape") == "one" or p["kind"] == "int") and name in optional_in:
                c_args.append(Arg(p, "default"))
            else:
                raise BindError(f"{symbol}: missing argument '{name}' ({p['decl']})")
            continue
        idx = src[1]
        t = types_by_name[name]
        if p["kind"] == "int":
            if not isinstance(t, types.Integer):
                raise BindError(f"{symbol}: argument '{name}' must be an integer, got {_tname(t)}")
        else:
            element_check(symbol, name, p, t, dtype)
        c_args.append(Arg(p, "arg", idx))
    return Binding(entry, c_args, names, return_param, explicit_temp is not None or "temp" in kws)
