"""The device ABI's naming rules (DESIGN.md, "Device ABI"): type codes and symbol names. What each
primitive takes is read from its manifest, not from here."""

import numpy as np

__all__ = ["TYPE_CODES", "type_code", "geometry", "block_symbol", "warp_symbol", "ABIError"]


class ABIError(ValueError):
    pass


# numpy dtype name -> ABI type code
TYPE_CODES = {
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
}
INTEGER_CODES = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}
OPS = ("sum", "min", "max", "prod", "and", "or", "xor")
BITWISE_OPS = ("and", "or", "xor")


def type_code(name):
    """The ABI code of a numpy dtype name ("float32" -> "f32"), or ABIError."""
    code = TYPE_CODES.get(name)
    if code is None:
        raise ABIError(name)
    return code


def geometry(block):
    """t256 for a 1-D block, t16x16x1 for any other."""
    x, y, z = block
    return f"t{x}" if y == 1 and z == 1 else f"t{x}x{y}x{z}"


def block_symbol(stem, code, block, items, algorithm=None, extra=None):
    """coop_block_<stem>_<type>_<geometry>_i<items>[_<algorithm>][_<extra>]; stem is the family part with its
    variant and op in the ABI's order ("reduce_sum", "exclusive_scan_max_prefix", "load_guarded"); a family with
    a single algorithm (the merge sort) has no algorithm suffix; extra: a family's second number ("b256": a
    histogram's bins, "d4": a run-length decode's items a thread)."""
    return f"coop_block_{stem}_{code}_{geometry(block)}_i{items}" + (f"_{algorithm}" if algorithm else "") + \
        (f"_{extra}" if extra else "")


def warp_symbol(stem, code, lanes, items=None, algorithm=None):
    """coop_warp_<stem>_<type>_w<lanes>: a primitive of logical warps of `lanes` threads; a warp load, store
    or exchange adds _i<items>_<algorithm>, a merge sort _i<items>."""
    tail = (f"_i{items}" if items is not None else "") + (f"_{algorithm}" if algorithm is not None else "")
    return f"coop_warp_{stem}_{code}_w{lanes}{tail}"


def numpy_name(dtype):
    """The numpy name of a dtype-like, or None."""
    try:
        return np.dtype(dtype).name
    except TypeError:
        return None
