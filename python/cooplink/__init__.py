"""cooplink: CUB's cooperative primitives as prebuilt LTO-IR with C-ABI entry points.

`import cooplink.numba as coop` gives the primitives inside Numba kernels (`coop.block.make_load`, ...,
or `coop.block.load(...)` with no factory). `python -m cooplink` says what this installation uses.
"""

from ._lib import CooplinkError, catalog_dir, environment, resolve

__version__ = "0.1.0"
__all__ = ["CooplinkError", "catalog_dir", "environment", "resolve", "__version__"]
