"""The Numba side: the primitive's type, its call's typing (from the manifest, through _bind) and one
lowering for every primitive: a call of the C symbol with pointers to the kernel's arrays, temp storage in
shared memory when the user gives none, and the bundle's payload attached to the kernel's own link.

Also coop.local.array / coop.shared.array: arrays whose type records their length (and alignment), so
that a call can take items_per_thread from its arguments and check a temp storage's size and alignment
while typing."""

import inspect
import threading

import numpy as np
from llvmlite import ir
from numba.cuda import cgutils, types
from numba.cuda.core import errors
from numba.cuda.cudadrv import nvvm
from numba.cuda.cudadrv.linkable_code import LTOIR, Fatbin
from numba.cuda.cudaimpl import _generic_array, _get_unique_smem_id
from numba.cuda.extending import lower_builtin, register_model, typeof_impl
from numba.cuda.extending import core_models
from numba.cuda.typing.npydecl import parse_dtype
from numba.cuda.typing.templates import AbstractTemplate, AttributeTemplate, infer_getattr, infer_global, signature

from .. import _abi, _lib
from . import _bind

I8P = ir.PointerType(ir.IntType(8))


def current_arch():
    """The compute capability of the compile in progress (major*10+minor): numba-cuda's target flags,
    else the current device, else sm_90."""
    try:
        from numba.cuda.core import targetconfig
        cc = targetconfig.ConfigStack().top().compute_capability
        if cc:
            return cc[0] * 10 + cc[1]
    except Exception:  # noqa: BLE001 - no compile in progress
        pass
    try:
        from numba import cuda
        if cuda.is_available():
            major, minor = cuda.get_current_device().compute_capability
            return major * 10 + minor
    except Exception:  # noqa: BLE001
        pass
    return 90


# ---------------------------------------------------------------- payloads attached to the kernel's link

_linkables = {}
_linkables_lock = threading.Lock()


def linkable(resolved):
    """One LinkableCode per bundle and arch, so that a kernel calling several symbols of one bundle (or a
    device function and its kernel) links it once."""
    key = (resolved.name, hash(resolved.payload))
    with _linkables_lock:
        obj = _linkables.get(key)
        if obj is None:
            cls = Fatbin if resolved.kind == "fatbin" else LTOIR
            obj = cls(resolved.payload, name=f"{resolved.name}.{resolved.kind}")
            _linkables[key] = obj
        return obj


# ---------------------------------------------------------------- arrays that know their length

class CoopArray(types.Array):
    """A 1-D C array whose type records its element count and alignment (coop.local.array,
    coop.shared.array)."""

    def __init__(self, dtype, count, align, space, readonly=False):
        self.coop_count, self.coop_align, self.coop_space = count, align, space
        npd = _numpy_dtype(dtype)
        self.coop_nbytes = count * npd.itemsize if npd is not None else None
        name = f"coop.{space}.array({dtype} x {count}, align {align})"
        super().__init__(dtype, 1, "C", readonly=readonly, name=name)

    @property
    def key(self):
        return super().key + (self.coop_count, self.coop_align, self.coop_space)

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None, addrspace=None, aligned=None):
        # anything derived from it (a slice, a view) is a plain array
        return types.Array(dtype or self.dtype, ndim or self.ndim, layout or self.layout,
                           readonly=not self.mutable if readonly is None else readonly,
                           aligned=self.aligned if aligned is None else aligned)


register_model(CoopArray)(core_models.ArrayModel)


def _numpy_dtype(nbtype):
    if nbtype == getattr(types, "bfloat16", None):
        return np.dtype(np.uint16)
    try:
        from numba.np.numpy_support import as_dtype
        return np.dtype(as_dtype(nbtype))
    except Exception:  # noqa: BLE001
        return None


def _literal_int(t, what):
    if isinstance(t, types.IntegerLiteral):
        return t.literal_value
    raise errors.TypingError(f"{what} must be a constant integer, got {t}")


def _array_typer(space):
    def typer(args, kws):
        kws = dict(kws)
        shape = args[0] if args else kws.pop("shape", None)
        dtype = args[1] if len(args) > 1 else kws.pop("dtype", types.uint8 if space == "shared" else None)
        align = args[2] if len(args) > 2 else kws.pop("alignment", None)
        if shape is None or dtype is None:
            raise errors.TypingError(f"coop.{space}.array(shape, dtype{', alignment' if space == 'shared' else ''})"
                                     f": shape and dtype are required")
        n = _literal_int(shape, f"coop.{space}.array: shape")
        if n <= 0:
            raise errors.TypingError(f"coop.{space}.array: shape must be positive, got {n}")
        nb = parse_dtype(dtype) if not isinstance(dtype, types.Type) or isinstance(dtype, types.DTypeSpec) \
            else dtype
        if isinstance(dtype, (types.NumberClass, types.TypeRef)):  # a number class, or a record type
            nb = dtype.instance_type
        if nb is None:
            raise errors.TypingError(f"coop.{space}.array: unsupported dtype {dtype}")
        npd = _numpy_dtype(nb)
        natural = max(1, (npd.alignment if npd is not None and npd.fields else npd.itemsize if npd is not None else 1))
        a = natural if align is None or isinstance(align, (types.NoneType, types.Omitted)) else \
            _literal_int(align, f"coop.{space}.array: alignment")
        if a & (a - 1) or a < natural:
            raise errors.TypingError(f"coop.{space}.array: alignment must be a power of two >= {natural}, got {a}")
        return CoopArray(nb, n, a, space)
    return typer


def allocate(context, builder, ty, space):
    """The storage of a CoopArray. numba-cuda allocates local/shared arrays of numeric types only, so a type
    it refuses (bfloat16) is allocated as unsigned integers of its size and viewed as ty."""
    stand_in = ty.dtype
    if ty.dtype == getattr(types, "bfloat16", None):
        stand_in = types.uint16
    if space == "local":
        kw = dict(symbol_name="_cudapy_lmem", addrspace=nvvm.ADDRSPACE_LOCAL)
    else:
        kw = dict(symbol_name=_get_unique_smem_id("_coop_smem"), addrspace=nvvm.ADDRSPACE_SHARED)
    value = _generic_array(context, builder, shape=(ty.coop_count,), dtype=stand_in, can_dynsized=False,
                           alignment=ty.coop_align, **kw)
    if stand_in == ty.dtype:
        return value
    src = context.make_array(types.Array(stand_in, 1, "C"))(context, builder, value=value)
    dst = context.make_array(ty)(context, builder)
    context.populate_array(dst, data=builder.bitcast(src.data, dst.data.type), shape=src.shape,
                           strides=src.strides, itemsize=src.itemsize, meminfo=None)
    return dst._getvalue()


def local_array(shape, dtype, alignment=None):
    """Inside a kernel: a thread-local array of `shape` elements whose type records its length, so that
    a coop call can take items_per_thread from it."""
    raise RuntimeError("coop.local.array is only callable inside a @cuda.jit kernel")


def shared_array(shape, dtype=np.uint8, alignment=None):
    """Inside a kernel: a shared-memory array with the given alignment, whose type records its size, so
    that a coop call checks it as temp storage while typing."""
    raise RuntimeError("coop.shared.array is only callable inside a @cuda.jit kernel")


def _register_array(fn, space):
    typer = _array_typer(space)

    @infer_global(fn)
    class _ArrayTemplate(AbstractTemplate):
        prefer_literal = True

        def generic(self, args, kws):
            ty = typer(args, kws)
            # numba folds the call by this signature: the positional names, then the keywords as written
            names = ["shape", "dtype", "alignment"][:len(args)] + list(kws)
            pysig = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                       for n in names])
            return signature(ty, *(list(args) + list(kws.values()))).replace(pysig=pysig)

    @lower_builtin(fn, types.VarArg(types.Any))
    def _lower(context, builder, sig, args):
        return allocate(context, builder, sig.return_type, space)


_register_array(local_array, "local")
_register_array(shared_array, "shared")


# ---------------------------------------------------------------- the primitive's type and call

class PrimitiveType(types.Opaque):
    """The type of a factory's primitive (a global of the kernel)."""

    def __init__(self, prim):
        self.prim = prim
        super().__init__(name=f"cooplink.{prim.name}")

    @property
    def key(self):
        return self.prim.key


register_model(PrimitiveType)(core_models.OpaqueModel)


class CallSig:
    """What typing decided for one call site (the variant, the binding, the bundle), carried to lowering."""

    def __init__(self, prim, variant, binding, resolved):
        self.prim, self.variant, self.binding, self.resolved = prim, variant, binding, resolved


class BoundPrimitiveType(PrimitiveType):
    """The receiver of one typed call: lowering reads the call's binding from it (numba drops the pysig
    of a bound call before lowering)."""

    def __init__(self, prim, call, key):
        self.call, self._call_key = call, key
        super().__init__(prim)
        self.name = f"cooplink.{prim.name}[{call.variant}]"

    @property
    def key(self):
        return self._call_key


register_model(BoundPrimitiveType)(core_models.OpaqueModel)
_calls = {}


def bound_type(prim, call, folded, names):
    key = ("cooplink-call", prim.key, call.variant, tuple(folded), tuple(names))
    t = _calls.get(key)
    if t is None:
        t = _calls[key] = BoundPrimitiveType(prim, call, key)
    return t


class _PySig(inspect.Signature):
    __slots__ = ("call",)


def typing_error(exc):
    return errors.TypingError(str(exc))


def type_call(prim, args, kws):
    """Binds a call to one of the primitive's variants; returns a numba signature whose pysig carries it."""
    arch = current_arch()
    try:
        call = prim.bind(args, kws, arch)
    except (_bind.BindError, _abi.ABIError, ValueError) as e:
        raise typing_error(e) from None
    except _lib.CooplinkError as e:
        raise errors.TypingError(f"cooplink: {e}") from None
    b = call.binding
    ret = prim.dtype if b.return_param is not None else types.none
    folded = list(args) + [kws[n] for n in b.names[len(args):]]
    pysig = _PySig([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                    for n in b.names])
    pysig.call = call
    return ret, folded, pysig


def register_primitive_class(cls):
    """Makes instances of cls (a factory's primitive) usable inside kernels."""

    @typeof_impl.register(cls)
    def _typeof(val, c):
        return PrimitiveType(val)

    return cls


@infer_getattr
class _PrimitiveAttrs(AttributeTemplate):
    key = PrimitiveType

    def resolve___call__(self, fnty):
        prim = fnty.prim

        class _Call(AbstractTemplate):
            key = fnty

            def generic(self, args, kws):
                ret, folded, pysig = type_call(prim, args, kws)
                recvr = bound_type(prim, pysig.call, folded, list(pysig.parameters))
                return signature(ret, *folded, recvr=recvr).replace(pysig=pysig)

        return types.Function(_Call)


def convert(context, builder, val, fromty, toty):
    """context.cast, except that a conversion to bfloat16 from another type goes through float32 (numba-cuda's
    integer -> bfloat16 constructors gave 0 on the H200)."""
    bf16 = getattr(types, "bfloat16", None)
    if toty == bf16 and fromty != bf16 and fromty != types.float32:
        val, fromty = context.cast(builder, val, fromty, types.float32), types.float32
    return context.cast(builder, val, fromty, toty)


def auto_temp_storage(module, entry, slots=1, scope="block"):
    """The shared memory calls given no temp storage use: one array per function and scope, which every
    such call of the function shares, since each ends with a barrier of its scope (__syncthreads, or
    __syncwarp of its logical warp, whose slot is its own); it grows to the largest temp any of them needs
    (`slots` temps of the entry's size). An array per call site made a kernel calling BlockReduce 8 times
    keep 8 and recompute their addresses; an array per warp primitive sized for 1024 threads overflowed
    shared memory for a kernel calling six of them. Warp temps are one array per slot size: logical warps
    do not wait for each other, so warp 1 in a primitive with 200-byte slots would overlap warp 2 in one
    with 100-byte slots of the same array (measured: a guarded sort of records beside one of int32 keys
    read other warps' data on the H200)."""
    name = f"_coop_{scope}_temp" if scope == "block" else f"_coop_{scope}_temp_{entry['temp_bytes']}"
    nbytes = entry["temp_bytes"] * slots
    # 16 bytes at least, as a CUDA C kernel's __align__(16) temp: CUB's shared reads are then
    # vectorized (measured: scalar ld.shared without it, 3.6% slower than cuda.coop's kernel)
    align = max(entry["temp_align"], 16)
    gv = module.globals.get(name)
    if gv is None:
        gv = cgutils.add_global_variable(module, ir.ArrayType(ir.IntType(8), nbytes), name, nvvm.ADDRSPACE_SHARED)
        gv.linkage = "internal"
        gv.align = align
    elif gv.value_type.count < nbytes or gv.align < align:
        # the IR is printed once lowering is done: the uses made so far print the grown type too
        gv.value_type = ir.ArrayType(ir.IntType(8), max(nbytes, gv.value_type.count))
        gv.type = gv.value_type.as_pointer(nvvm.ADDRSPACE_SHARED)
        gv.align = max(gv.align, align)
    gv.initializer = ir.Constant(gv.value_type, ir.Undefined)
    return gv


def emit_call(context, builder, sig, args, call):
    """The C call: arguments per the binding, the payload attached to the kernel's link."""
    b, prim = call.binding, call.prim
    entry = b.entry
    context.active_code_library.add_linking_file(linkable(call.resolved))
    if prim.custom is not None:  # the user's operator, compiled to LTO-IR for the kernel's arch
        context.active_code_library.add_linking_file(prim.custom.linkable(prim.dtype, current_arch()))
    dtype = prim.dtype
    record = isinstance(dtype, types.Record)  # a user type: its value is a pointer to its data

    def slot(name):
        """A local slot for one element (a record's data, aligned as the type the bundle was made for)."""
        if not record:
            return cgutils.alloca_once(builder, context.get_value_type(dtype), name=name)
        s = cgutils.alloca_once(builder, context.get_data_type(dtype), name=name)
        s.align = prim.user_types[0][2]
        return s
    argtys = [ir.IntType(32) if a.param["kind"] == "int" else I8P for a in b.args]
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), argtys), entry["name"])
    values, ret_slot = [], None
    auto_temp = False
    for a in b.args:
        p = a.param
        if a.source == "null":
            values.append(ir.Constant(I8P, None))
            continue
        if a.source == "alloc":
            values.append(prim.auto_temp(builder, entry))
            auto_temp = True
            continue
        if a.source == "return":
            ret_slot = slot("coop_result")
            values.append(builder.bitcast(ret_slot, I8P))
            continue
        if a.source == "default" and p["kind"] == "int":  # by value (a radix sort's bit range)
            values.append(ir.Constant(ir.IntType(32), int(prim.default_value(p["name"]))))
            continue
        if a.source == "default":
            dslot = slot(p["name"])
            value = prim.default_value(p["name"])
            if record:  # the record's bytes (a numpy record given to the factory)
                data = bytes(value)
                builder.store(ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), bytearray(data)), dslot)
            else:
                builder.store(convert(context, builder, context.get_constant(types.float64, float(value)),
                                      types.float64, dtype) if isinstance(value, float) else
                              convert(context, builder, context.get_constant(types.int64, int(value)), types.int64,
                                      dtype), dslot)
            values.append(builder.bitcast(dslot, I8P))
            continue
        ty, val = sig.args[a.index], args[a.index]
        if isinstance(ty, types.Literal) and not isinstance(ty, types.Array):
            # a constant in the call: materialize it with its own type before converting (numba's casts
            # from a literal to bfloat16 do not go through the value)
            ty = ty.literal_type
            val = context.get_constant(ty, sig.args[a.index].literal_value)
        if p["kind"] == "int":
            values.append(context.cast(builder, val, ty, types.int32))
        elif isinstance(ty, types.Array):
            ary = context.make_array(ty)(context, builder, value=val)
            values.append(builder.bitcast(ary.data, I8P))
        elif record:  # a record value is already a pointer to its data
            values.append(builder.bitcast(val, I8P))
        else:  # a scalar for one element (or the one item of items_per_thread == 1)
            pd = _bind.param_dtype(p, dtype)
            vslot = slot(p["name"]) if pd == dtype else cgutils.alloca_once(builder, context.get_value_type(pd))
            builder.store(convert(context, builder, val, ty, pd), vslot)
            values.append(builder.bitcast(vslot, I8P))
    builder.call(fn, values)
    if auto_temp:
        # temp storage the call owns is reused by the next pass of a loop: as cuda.coop's implicit form,
        # the call ends with a barrier (a call given temp_storage leaves that to the caller, as CUB does)
        prim.scope_barrier(builder)
    if ret_slot is not None:
        return ret_slot if record else builder.load(ret_slot)
    return context.get_dummy_value()


@lower_builtin(PrimitiveType, PrimitiveType, types.VarArg(types.Any))
def _lower_primitive_call(context, builder, sig, args):
    return emit_call(context, builder, signature(sig.return_type, *sig.args[1:]), args[1:], sig.args[0].call)


def barrier(builder):
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), ()), "llvm.nvvm.barrier0")
    builder.call(fn, ())


def _sreg(builder, name):
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), ()),
                                        f"llvm.nvvm.read.ptx.sreg.{name}")
    return builder.call(fn, ())


def _linear_tid(builder):
    x, y, z = (_sreg(builder, f"tid.{d}") for d in "xyz")
    nx, ny = _sreg(builder, "ntid.x"), _sreg(builder, "ntid.y")
    return builder.add(x, builder.mul(nx, builder.add(y, builder.mul(ny, z))))


def warp_temp_slot(builder, entry, lanes, slots):
    """The calling logical warp's slot of a shared array of `slots` temps: CUB's logical warp number in
    the block, (tid / 32) * (32 / lanes) + (tid % 32) / lanes."""
    i32 = ir.IntType(32)
    tid = _linear_tid(builder)
    slot = builder.add(builder.mul(builder.udiv(tid, ir.Constant(i32, 32)), ir.Constant(i32, 32 // lanes)),
                       builder.udiv(builder.urem(tid, ir.Constant(i32, 32)), ir.Constant(i32, lanes)))
    base = builder.addrspacecast(auto_temp_storage(builder.module, entry, slots, "warp"), I8P, "generic")
    return builder.gep(base, [builder.mul(slot, ir.Constant(i32, entry["temp_bytes"]))])


def warp_barrier(builder, lanes):
    """__syncwarp over the calling logical warp's lanes (CUB's member mask for it)."""
    i32 = ir.IntType(32)
    if lanes == 32:
        mask = ir.Constant(i32, 0xFFFFFFFF)
    else:
        lane = _sreg(builder, "laneid")
        first = builder.mul(builder.udiv(lane, ir.Constant(i32, lanes)), ir.Constant(i32, lanes))
        mask = builder.shl(ir.Constant(i32, (1 << lanes) - 1), first)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), (i32,)),
                                        "llvm.nvvm.bar.warp.sync")
    builder.call(fn, (mask,))


# ---------------------------------------------------------------- single-phase functions

def call_stub(module, qualified, name, doc):
    """The Python object of a call with no factory: typed and lowered in kernels, an error outside. It
    belongs to `module` (numba resolves a global function through its module)."""
    def fn(*args, **kws):
        raise RuntimeError(f"{qualified} is only callable inside a @cuda.jit kernel")
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module
    fn.__doc__ = doc
    return fn


def register_single_phase(fn, make_primitive, config):
    """fn(...) inside a kernel: make_primitive(args, kws) builds the primitive from the call (dtype and
    items from the arguments, threads from the launch or threads=); config: its keyword names."""

    @infer_global(fn)
    class _Template(AbstractTemplate):
        prefer_literal = True

        def generic(self, args, kws):
            try:
                prim = make_primitive(args, kws)
            except (_bind.BindError, _abi.ABIError, ValueError) as e:
                raise typing_error(e) from None
            call_kws = {k: v for k, v in kws.items() if k not in config}
            ret, folded, pysig = type_call(prim, args, call_kws)
            # the configuration keywords are folded after the call's own arguments
            extra = [k for k in kws if k in config]
            params = list(pysig.parameters.values()) + [
                inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                for k in extra]
            call = pysig.call
            pysig = _PySig(params)
            pysig.call = call
            return signature(ret, *(folded + [kws[k] for k in extra])).replace(pysig=pysig)

    @lower_builtin(fn, types.VarArg(types.Any))
    def _lower(context, builder, sig, args):
        return emit_call(context, builder, sig, args, sig.pysig.call)

    return fn
