"""The adaptive segmented reduction's choice of kernels, from what the host knows without reading the
offsets: the item count n, the segment count and the item size (rules from bench/results/segreduce).

  warp first stage   mean segment <= WARP_BOUNDED_MAX_BYTES: sr_warp<lanes> (registers bounded, every
                     warp an SM can hold), lanes * 16 bytes = the mean segment up to 256 bytes (4..32 lanes);
                     up to WARP_MAX_MEAN_BYTES: sr_warp32u (unbounded registers); longer segments than
                     `defer` items go on
  block first stage  longer means: sr_block, one block per segment; segments over BLOCK_DEFER_BYTES go on
  chunk stage        sr_chunks: the deferred segments in chunks of CHUNK_BYTES, a block each
  final stage        sr_finalize: segments of more than one chunk, from their chunks' partials
"""
from dataclasses import dataclass

VECTOR_BYTES = 16
CHUNK_BYTES = 65536    # kernels.cu SR_CHUNK (prepare.sh)
BLOCK_DEFER_BYTES = 1 << 20
WARP_MAX_MEAN_BYTES = 8192
WARP_BOUNDED_MAX_BYTES = 4096
WARP_TILE_BYTES = 256
WARP_DEFER_TILES = 64


@dataclass(frozen=True)
class Plan:
    first: str      # "warp", "warpu" (unbounded registers) or "block"
    lanes: int      # the warp stage's logical warp (0 for block)
    defer: int      # items: longer segments go to the chunk stage

    def __str__(self):
        return f"{self.first}{self.lanes or ''} defer>{self.defer}"


def choose(n, n_seg, itemsize, **override):
    vec = VECTOR_BYTES // itemsize
    mean = n / max(1, n_seg)
    if mean * itemsize <= WARP_BOUNDED_MAX_BYTES:
        lanes = 4
        while lanes < 32 and lanes * VECTOR_BYTES < min(mean * itemsize, WARP_TILE_BYTES):
            lanes *= 2
        p = Plan("warp", lanes, WARP_DEFER_TILES * 32 * vec)
    elif mean * itemsize <= WARP_MAX_MEAN_BYTES:
        p = Plan("warpu", 32, WARP_DEFER_TILES * 32 * vec)
    else:
        p = Plan("block", 0, BLOCK_DEFER_BYTES // itemsize)
    return Plan(**{**p.__dict__, **override})
