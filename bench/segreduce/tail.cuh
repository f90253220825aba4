// The adaptive launcher's queue and tail (bench/segreduce/kernels.cu's, included by it alone: its macros, SR_T,
// SR_CHUNK, OPF, BRED, and block_range): the deferred segments' work items, reserved by a first stage, taken by
// every block once its own share is done (sr_tail).
#pragma once

/* The adaptive launcher's deferred segments. A first stage that meets a segment longer than `defer`
 * reserves its chunks of SR_CHUNK items (a contiguous range of work items: sr_reserve_add, or
 * sr_reserve_cas in the kernels bounded to 32 registers) and writes one work item per chunk,
 * (segment + 1) << 32 | chunk number, where 0 means "not written yet". A reservation that would pass the
 * queue's `capacity` (offsets that overlap can) fails, and its group reduces the segment itself; a failed
 * fetch-and-add records where the items that will never be written begin (`dead`). Every block, its own share done,
 * takes work items, a block a chunk, until none is left. Once every block of the grid has started
 * (`started`), a take is a fetch-and-add on `taken`: a ticket, which may name an item not reserved yet;
 * its block waits until the item is written or reserving is over (every block with a share is through it,
 * `shared`) without it. Before that a block may wait for nothing that is not running: it takes a reserved
 * item by compare-and-swap or leaves; the grid's last block (blocks start in index order, as CUB's
 * decoupled look-back also assumes: when it runs, every block has started) always waits for reserving to
 * be over and takes what is left. A segment of several chunks leaves one partial per chunk; the block that
 * finishes its last chunk combines them in chunk order. Every call leaves the queue, the items and the
 * counters zeroed. (In sr_block's one launch only its tail blocks take part, ranked among themselves: the
 * blocks, the grid and its last block above are theirs.) */
struct sr_queue {
  unsigned chunks;  /* work items reserved (past `capacity` after a failed reservation) */
  unsigned taken;   /* tickets handed out */
  unsigned shared;  /* blocks with a share of their own through it: at share_blocks, reserving is over */
  unsigned exited;  /* blocks out: the last one zeroes the queue */
  unsigned started; /* blocks started: at all of them, a block may hold a ticket for an item to come */
  unsigned dead;    /* capacity less the first item of the first failed reservation (0: none failed) */
  unsigned pad[2];
};

__device__ __forceinline__ unsigned sr_chunk_count(long long len) { return (unsigned)((len + SR_CHUNK - 1) / SR_CHUNK); }

#define SR_NONE 0xffffffffu

/* Whether the reservation of `count` items from `first` fits the queue. */
__device__ __forceinline__ bool sr_fits(unsigned first, unsigned count, unsigned capacity)
{
  return first <= capacity && count <= capacity - first;
}

/* A reservation from `first` failed: the items from there on are never written (every later reservation
 * fails too), which `dead` (capacity less the lowest such `first`) tells the ticket holders. */
__device__ __forceinline__ void sr_failed(sr_queue *q, unsigned first, unsigned capacity)
{
  if (first < capacity) atomicMax(&q->dead, capacity - first);
}

/* The end of the work items that are or will be written: `chunks` or less. */
__device__ __forceinline__ unsigned sr_end(const sr_queue *q, unsigned capacity)
{
  return min(bm_load_acquire(&q->chunks), capacity - bm_load_acquire(&q->dead));
}

/* Counts this block in `started` (a first stage's first step; q null: a fixed kernel alone). */
__device__ __forceinline__ void sr_start(sr_queue *q)
{
  if (q && threadIdx.x == 0) atomicAdd(&q->started, 1);
}

/* The first of `count` work items reserved for a segment, or SR_NONE when the queue has no room: by
 * compare-and-swap (a reservation that does not fit leaves `chunks` as it was), for the kernels bounded to
 * 32 registers, which a fetch-and-add spills (the compiler aggregates a warp's fetch-and-adds on one
 * address with a shuffle scan); one round trip per reservation, the others retry meanwhile. */
__device__ __forceinline__ unsigned sr_reserve_cas(sr_queue *q, unsigned capacity, unsigned count)
{
  unsigned c = bm_load_acquire(&q->chunks);
  for (;;) {
    if (c > capacity || count > capacity - c) return SR_NONE;
    const unsigned seen = atomicCAS(&q->chunks, c, c + count);
    if (seen == c) return c;
    c = seen;
  }
}

/* The same by fetch-and-add: one atomic whatever the contention; a reservation that does not fit passes
 * `capacity` and records it (sr_failed). */
__device__ __forceinline__ unsigned sr_reserve_add(sr_queue *q, unsigned capacity, unsigned count)
{
  const unsigned first = atomicAdd(&q->chunks, count);
  if (sr_fits(first, count, capacity)) return first;
  sr_failed(q, first, capacity);
  return SR_NONE;
}

/* A work item (or a ticket for one) for this block, or SR_NONE: see sr_queue (`ranks`: the blocks that take
 * part in the tail, gridDim.x but in sr_block's one launch). */
__device__ __forceinline__ unsigned sr_take(sr_queue *q, unsigned capacity, unsigned ranks)
{
  if (bm_load_acquire(&q->started) == ranks) return atomicAdd(&q->taken, 1);
  unsigned t = bm_load_acquire(&q->taken);
  for (;;) {
    if (t >= sr_end(q, capacity)) return SR_NONE;
    const unsigned seen = atomicCAS(&q->taken, t, t + 1);
    if (seen == t) return t;
    t = seen;
  }
}

/* The lanes (`lane` of `lanes`) of the group that deferred segment s write its work items from `first`. */
__device__ __forceinline__ void sr_write_items(int s, long long len, unsigned first, int lane, int lanes,
                                               unsigned long long *items)
{
  for (unsigned j = lane; j < sr_chunk_count(len); j += lanes)
    __stcg(items + first + j, (unsigned long long)(s + 1) << 32 | j);
}

/* The adaptive launcher's second part, run by every block when its own share is done (see sr_queue);
 * a block's thread 0 takes its next work item while the block reduces the current one. */

/* Work item t once written, or 0 when there is none: t passed the items reserved by the time reserving
 * was over (or the queue's capacity). */
__device__ __forceinline__ unsigned long long sr_item(const sr_queue *q, const unsigned long long *items,
                                                      unsigned t, unsigned capacity, unsigned share_blocks)
{
  if (t == SR_NONE) return 0;
  for (;;) {
    if (t >= capacity - bm_load_acquire(&q->dead)) return 0;
    const unsigned long long w = __ldcv(items + t);
    if (w != 0) return w;
    if (bm_load_acquire(&q->shared) >= share_blocks && t >= sr_end(q, capacity)) return 0;
    __nanosleep(64);
  }
}

/* The next work item for this block (`rank` of the tail's `ranks` blocks), as sr_item; the last of them,
 * finding none free, waits for reserving to be over and takes what is left. */
__device__ __forceinline__ unsigned long long sr_next(sr_queue *q, const unsigned long long *items, unsigned *ticket,
                                                      unsigned capacity, unsigned share_blocks, unsigned rank,
                                                      unsigned ranks)
{
  unsigned t = sr_take(q, capacity, ranks);
  if (t == SR_NONE && rank == ranks - 1) {
    while (bm_load_acquire(&q->shared) < share_blocks && (t = sr_take(q, capacity, ranks)) == SR_NONE) __nanosleep(128);
    if (t == SR_NONE) t = sr_take(q, capacity, ranks);
  }
  *ticket = t;
  return sr_item(q, items, t, capacity, share_blocks);
}

/* rank, ranks: this block's place among the blocks that take part in the tail, and their number (blockIdx.x
 * and gridDim.x but in sr_block's one launch, whose blocks of segments leave before it). */
template <int U>
__device__ __forceinline__ void sr_tail(const SR_T *in, const int *off, SR_T *out, sr_queue *q, unsigned long long *items,
                                        SR_T *partial, unsigned *done, unsigned capacity, unsigned share_blocks,
                                        void *temp, unsigned rank, unsigned ranks)
{
  __shared__ unsigned long long work;
  __shared__ unsigned ticket;
  __shared__ int combine;
  __syncthreads(); /* every warp of the block is through its share */
  if (threadIdx.x == 0) {
    __threadfence();
    if (rank < share_blocks) atomicAdd(&q->shared, 1);
    if (rank >= share_blocks) /* no share: the blocks with one (all started before) reserve first */
      while (bm_load_acquire(&q->shared) < share_blocks) __nanosleep(128);
    work = sr_next(q, items, &ticket, capacity, share_blocks, rank, ranks);
  }
  __syncthreads();
  for (;;) {
    const unsigned long long w = work;
    const unsigned t = ticket;
    if (w == 0) break;
    unsigned next = SR_NONE;
    if (threadIdx.x == 0) {
      __stcg(items + t, 0ull);
      next = sr_take(q, capacity, ranks); /* (its latency hides behind this chunk's loads) */
    }
    const unsigned j = (unsigned)w;
    const int s = (int)(w >> 32) - 1;
    const int sb = off[s], se = off[s + 1];
    const int b = sb + (int)j * SR_CHUNK;
    const SR_T acc = block_range<U>(in, b, (int)min((long long)b + SR_CHUNK, (long long)se));
    SR_T agg;
    BRED(&acc, &agg, temp);
    const unsigned n = sr_chunk_count(se - sb);
    if (threadIdx.x == 0) {
      int last = 0;
      if (n == 1) {
        out[s] = agg;
      } else {
        partial[t] = agg;
        __threadfence();
        last = atomicAdd(done + (t - j), 1) == n - 1;
      }
      combine = last;
    }
    __syncthreads();
    if (combine) { /* this segment's last chunk: its partials, in chunk order */
      __threadfence();
      const unsigned first = t - j;
      SR_T a = SR_ID;
      for (unsigned i = threadIdx.x; i < n; i += SR_THREADS) a = OPF(a, __ldcg(partial + first + i));
      SR_T total;
      BRED(&a, &total, temp);
      if (threadIdx.x == 0) {
        out[s] = total;
        done[first] = 0;
      }
    }
    if (threadIdx.x == 0) {
      if (next == SR_NONE) {
        work = sr_next(q, items, &ticket, capacity, share_blocks, rank, ranks);
      } else {
        ticket = next;
        work = sr_item(q, items, next, capacity, share_blocks);
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&q->exited, 1) == ranks - 1) { /* every other block of the tail is out */
      __threadfence();
      *q = sr_queue{};
    }
  }
}
