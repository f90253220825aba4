"""The adaptive segmented reduction's choice of kernel, from what the host knows without reading the
offsets: the item count n, the segment count and the item size. Pure Python (no import of numba or of
libcooplink), so that bench/segreduce loads it by path for its CUDA C kernels as well; the rules come from
the measurements in bench/results/segreduce.

  warp first stage   mean segment <= WARP_TILE_BYTES: sr_warp<lanes> (registers bounded, every warp an SM
                     can hold), lanes * 16 bytes = the mean segment (4..32 lanes); up to WARPT_MAX_BYTES (items
                     of 4 bytes or more): sr_warp<lanes>t, whose first four tiles a segment (lanes * 64
                     bytes, 8..32 lanes: the mean segment) load at once (H200, float32, 128 items: warpt8
                     0.916 of the read ceiling, warp16 0.893; 1024 items: warpt32 0.952, warpu16 0.932:
                     bench/results/segreduce/s25_explore_f32sum.json); up to WARP_MAX_MEAN_BYTES:
                     sr_warp32u (four tiles in flight a lane; random lengths of mean 8 KB: 0.873, warpt32
                     0.814); 1- and 2-byte items (16 or 8 registers a vector) keep sr_warp<lanes> up to
                     WARP_BOUNDED_MAX_BYTES, then sr_warp16u up to WARP16U_MAX_BYTES
  block first stage  longer means up to BLOCK_DEFER_CHUNKS chunks: sr_block, one block per segment; past
                     that, sr_warp32u with every segment of more than a few tiles deferred
  the tail           every block, its own share done, takes the segments longer than `defer` items in
                     chunks of CHUNK_BYTES (one launch: the kernels' sr_tail)
"""
from dataclasses import dataclass

VECTOR_BYTES = 16
THREADS = 256          # a block of every kernel
SEGS_IN_FLIGHT = 2     # segments in flight per logical warp (kernels.cu SR_K)
CHUNK_BYTES = 262144   # bench/segreduce/modules.sh SR_CHUNK = CHUNK_BYTES / item size (64 KB before: a block's
                       # BlockReduce and next take after every chunk kept 1M-item segments at 0.88)
BLOCK_DEFER_CHUNKS = 4
WARP_MAX_MEAN_BYTES = 8192
WARP_BOUNDED_MAX_BYTES = 2048
WARP16U_MAX_BYTES = 4096
WARP_TILE_BYTES = 256
WARPT_TILES = 4        # kernels.cu SR_WARPT_TILES
WARPT_MAX_BYTES = 4096
WARPT_MIN_ITEMSIZE = 4
WARP_DEFER_TILES = 64


@dataclass(frozen=True)
class Plan:
    first: str      # "warp", "warpu" (up to 64 registers), "warpt" ("warpu" with the first four tiles of
                    # each segment loaded at once), "block" or "run" (a block per run of consecutive
                    # segments, sr_run: not chosen by choose(), 0.31-0.38 of the read ceiling; "wrun", a
                    # warp per run of 32, sr_wrun: CUDA C only, explored)
    lanes: int      # the warp stage's logical warp (0 for block)
    defer: int      # items: longer segments go to the tail, in chunks

    @property
    def kernel(self):
        """The kernel's name (bench/segreduce/kernels.cu and cooplink.numba.segmented alike)."""
        if self.first in ("block", "run", "wrun"):
            return f"sr_{self.first}"
        return f"sr_warp{self.lanes}" + {"warpu": "u", "warpt": "t"}.get(self.first, "")

    def __str__(self):
        return f"{self.first}{self.lanes or ''} defer>{self.defer}"


def fixed_grid(first, lanes, n_seg, sm_count):
    """The grid of a first-stage kernel on its own: a block per segment, or the logical warps' blocks
    (grid-stride beyond 32 blocks an SM)."""
    if first == "block":
        return n_seg
    if first == "run":  # runs of up to a block's threads of segments, at least 16 runs an SM
        return max(-(-n_seg // THREADS), min(n_seg, sm_count * 16))
    if first == "wrun":  # a warp a run of 32 segments (sr_wrun, CUDA C only: explored, not chosen)
        return min(-(-n_seg // THREADS), sm_count * 32)
    return min(-(-n_seg // (THREADS // lanes * SEGS_IN_FLIGHT)), sm_count * 32)


BLOCK_GRID_SEGMENTS = 1 << 30  # sr_block's one launch: at most this many blocks of segments (grid-stride past it)
BLOCK_TAIL_PER_SM = 2  # and its tail blocks an SM (H200, float32 8192 items: 1 0.997 of the read ceiling,
                       # 2 0.994, 4 0.987, 8 (every block the GPU holds) 0.971, the fixed kernel 1.001, CUB 1.004;
                       # two keep 32 KB of a deferred chunk's loads in flight an SM)


def grid(plan, n_seg, sm_count, resident, tail_per_sm=BLOCK_TAIL_PER_SM):
    """(grid, share_blocks) of the one launch. sr_block: a block per segment (as its fixed grid, which the
    hardware hands out: the grid of the blocks the GPU holds at once, a grid-stride share of 31 segments a
    block, ran at 0.990 of it at 8192 items, the one launch on it at 0.973), none of which touches the queue,
    then tail blocks (share_blocks), which find the deferred segments in the offsets and take their
    chunks: BLOCK_TAIL_PER_SM an SM (every block the GPU holds at once at most), for they all start and
    wait for each other before they leave, and a thousand of them polling the queue held back the last
    blocks of segments. The other kernels: every block the GPU holds at once (`resident`), the first
    share_blocks with segments of their own (grid-stride where the fixed kernel's grid is larger), the rest
    only taking deferred chunks. (A grid of a block per segment of which every block adds to the queue's counters cost
    0.62 of the fixed kernel's time at 8192 items: 32768 blocks.) tail_per_sm: sr_block's tail blocks an SM
    (bench.py --explore times others)."""
    if plan.first == "block":
        tail = min(resident, tail_per_sm * sm_count)
        return min(n_seg, BLOCK_GRID_SEGMENTS) + tail, tail
    share = min(fixed_grid(plan.first, plan.lanes, n_seg, sm_count), resident)
    return resident, share


def chunk_items(itemsize):
    return CHUNK_BYTES // itemsize


def choose(n, n_seg, itemsize, warpt=True, **override):
    """The plan for n items in n_seg segments of items of `itemsize` bytes (warpt False: the rules before
    sr_warp<L>t); override: fields of the plan to replace."""
    vec = VECTOR_BYTES // itemsize
    mean = n / max(1, n_seg)
    if warpt and WARP_TILE_BYTES < mean * itemsize <= WARPT_MAX_BYTES and itemsize >= WARPT_MIN_ITEMSIZE:
        lanes = 8
        while lanes < 32 and lanes * WARPT_TILES * VECTOR_BYTES < mean * itemsize:
            lanes *= 2
        p = Plan("warpt", lanes, WARP_DEFER_TILES * 32 * vec)
    elif mean * itemsize <= WARP_BOUNDED_MAX_BYTES:
        lanes = 4
        while lanes < 32 and lanes * VECTOR_BYTES < min(mean * itemsize, WARP_TILE_BYTES):
            lanes *= 2
        p = Plan("warp", lanes, WARP_DEFER_TILES * 32 * vec)
    elif mean * itemsize <= WARP_MAX_MEAN_BYTES:
        p = Plan("warpu", 16 if mean * itemsize <= WARP16U_MAX_BYTES else 32, WARP_DEFER_TILES * 32 * vec)
    elif mean * itemsize <= BLOCK_DEFER_CHUNKS * CHUNK_BYTES:
        p = Plan("block", 0, BLOCK_DEFER_CHUNKS * chunk_items(itemsize))
    else:  # most items in segments the block stage would defer anyway: every segment past a warp's few tiles
        # goes to the tail at once, the rest to sr_warp32u (float32 1M: 0.954 against the block stage's 0.946;
        # bench/results/segreduce/s23_chunk256k_explore_f32sum.json)
        p = Plan("warpu", 32, WARP_DEFER_TILES * 32 * vec)
    return Plan(**{**p.__dict__, **override})


def work_capacity(n, n_seg, itemsize, defer, chunk=None):
    """The most work items (chunks) a call can reserve: each deferred segment (longer than `defer`, so at
    most n / (defer + 1) of them) rounds its last chunk up. chunk: items a chunk (chunk_items's by default)."""
    return n // (chunk or chunk_items(itemsize)) + min(n_seg, n // (defer + 1)) + 1
