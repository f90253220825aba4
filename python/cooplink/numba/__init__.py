"""cooplink for Numba: CUB's cooperative primitives inside @cuda.jit kernels.

    import cooplink.numba as coop

    block_load = coop.block.make_load(np.float32, 256, 4, "vectorize")     # cuda.coop 1.0.2's factories
    block_sum = coop.block.make_sum(np.float32, 256, 4)

    @cuda.jit                                                             # no link=
    def kernel(d_in, d_out):
        items = coop.local.array(4, numba.float32)
        block_load(d_in[cuda.blockIdx.x * 1024:], items)
        total = block_sum(items)                                          # thread 0 holds it
        total2 = coop.block.sum(items, threads=256)                       # or with no factory

Each call is typed from the primitive's manifest, lowered to a call of its C symbol, and the bundle's
LTO-IR is attached to the kernel's own link: the call is inlined and the kernel has no CALL and no local
memory. Configurations outside the catalog are generated on demand through libcooplink and cached on disk.
"""

from . import _compat

_compat.check()

import numpy as _np  # noqa: E402

if not hasattr(_np, "row_stack"):  # numba-cuda 0.30 calls numpy.row_stack, gone in numpy 2.5
    _np.row_stack = _np.vstack

from . import _extension  # noqa: E402
from . import block  # noqa: E402
from . import warp  # noqa: E402
from .._lib import CooplinkError  # noqa: E402
from .segmented import segmented_reduce  # noqa: E402


import types as _types  # noqa: E402

# modules, as cuda.local and cuda.shared are, so that Numba resolves coop.local.array inside kernels
local = _types.ModuleType("cooplink.numba.local",
                          "coop.local.array(shape, dtype): a thread-local array whose type records its length.")
local.array = _extension.local_array
shared = _types.ModuleType("cooplink.numba.shared", "coop.shared.array(shape, dtype=uint8, alignment=None): "
                           "shared memory with the given alignment, whose type records its size.")
shared.array = _extension.shared_array


__all__ = ["block", "warp", "local", "shared", "segmented_reduce", "CooplinkError"]
