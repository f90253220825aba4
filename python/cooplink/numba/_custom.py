"""Operators given as Python functions: each becomes a C-ABI device function (DESIGN.md, custom operators:
`extern "C" __device__ void <name>(const T *a, const T *b, T *out)`), compiled by Numba to LTO-IR for the
kernel's arch and attached to the kernel's link beside the primitive's bundle, which calls it by name
(its symbol spells the op `custom_<name>`); nvJitLink inlines both."""

import hashlib
import inspect
import re

from numba import cuda
from numba.cuda import types
from numba.cuda.extending import intrinsic


class CustomOp:
    """A Python binary operator for one element type."""

    def __init__(self, fn, code, comparator=False):
        self.fn, self.code, self.comparator = fn, code, comparator
        py = getattr(fn, "py_func", fn)
        base = re.sub(r"[^a-z0-9_]", "_", getattr(py, "__name__", "op").lower()).strip("_")[:16] or "op"
        ident = repr((_fingerprint(py), code, comparator))
        self.cname = f"py_{base}_{hashlib.sha256(ident.encode()).hexdigest()[:8]}_{code}"
        self.spelling = f"custom_{self.cname}"
        self._linkables = {}

    def linkable(self, dtype, arch):
        """The operator's LTO-IR for sm_<arch>, as numba-cuda's LinkableCode (compiled once per arch)."""
        obj = self._linkables.get(arch)
        if obj is None:
            # a device function called by the C-ABI shim (numba-cuda compiles it for the current device)
            fn = self.fn if hasattr(self.fn, "py_func") else cuda.jit(device=True)(self.fn)

            ptr = types.CPointer(dtype)
            record = isinstance(dtype, types.Record)  # records are passed by reference
            if self.comparator:  # int cmp(const T *a, const T *b): a goes before b
                if record:
                    def shim(a, b):
                        return 1 if fn(_as_record(a), _as_record(b)) else 0
                else:
                    def shim(a, b):
                        return 1 if fn(a[0], b[0]) else 0
                sig = types.int32(ptr, ptr)
            elif record:  # op(a, b, out) writes out
                def shim(a, b, out):
                    fn(_as_record(a), _as_record(b), _as_record(out))
                sig = types.void(ptr, ptr, ptr)
            else:
                def shim(a, b, out):
                    out[0] = fn(a[0], b[0])
                sig = types.void(ptr, ptr, ptr)
            ltoir, _ = cuda.compile(shim, sig, device=True, abi="c", abi_info={"abi_name": self.cname},
                                    output="ltoir", cc=divmod(arch, 10))
            from numba.cuda.cudadrv.linkable_code import LTOIR
            # one object per arch: numba-cuda's link takes each object once
            obj = self._linkables[arch] = LTOIR(bytes(ltoir), name=f"{self.cname}.ltoir")
        return obj


def _fingerprint(fn, depth=0):
    """What makes a Python operator the operator it is: its code and, recursively, what its closure holds.
    Two closures of one function body (the same code and name, other captured functions or values) are
    other operators: named alike, a primitive made for one was taken for the other (segmented_reduce's
    sr_run: the max of uint8 built with the sum's operator, whose initial value is the same 0)."""
    py = getattr(fn, "py_func", fn)
    co = getattr(py, "__code__", None)
    if co is None or depth > 8:
        return repr(py)  # (a value, or a callable that is not a Python function: its repr)
    cells = []
    for cell in py.__closure__ or ():
        try:
            cells.append(_fingerprint(cell.cell_contents, depth + 1))
        except ValueError:  # an empty cell
            cells.append(None)
    return (getattr(py, "__module__", ""), getattr(py, "__qualname__", ""), co.co_code, co.co_consts,
            tuple(cells))


@intrinsic
def _as_record(typingctx, ptr):
    """The record a C pointer points to (a record's value is a pointer to its data: no copy)."""
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], context.get_value_type(sig.return_type))
    return ptr.dtype(ptr), codegen


def check_arity(fn, dtype, what, comparator=False):
    """A record's operator takes (a, b, out) and writes out; a number's takes (a, b) and returns; a
    comparator takes (a, b) and is true when a goes before b."""
    py = getattr(fn, "py_func", fn)
    try:
        n = len(inspect.signature(py).parameters)
    except (TypeError, ValueError):
        return
    want = 3 if isinstance(dtype, types.Record) and not comparator else 2
    if n != want:
        form = "cmp(a, b), true when a goes before b" if comparator else \
            "op(a, b, out), writing a op b into the record out" if want == 3 else "op(a, b), returning a op b"
        raise ValueError(f"{what}={getattr(py, '__name__', py)!r} takes {n} arguments; for dtype={dtype} an "
                         f"operator is {form}")


_OPS = {}
BY_SPELLING = {}


def custom_op(fn, code, comparator=False):
    """The CustomOp of fn for type code (the same one for the same function); comparator: an ordering."""
    key = (getattr(fn, "py_func", fn), code, comparator)  # a function and its device function are one operator
    op = _OPS.get(key)
    if op is None:
        op = _OPS[key] = CustomOp(fn, code, comparator)
        BY_SPELLING[op.spelling] = op
    return op
