"""The adaptive kernels' one-launch protocol (sr_tail) on small inputs, with a watchdog: each call runs on
its own stream and is polled; if it has not finished within a few seconds, the work queue is read through
another stream (the copy engine runs beside a kernel that waits) and printed with the case, and the
process exits (a hang is reported, not waited for). Then results and the queue's zeroing are checked.
CUDA C (kernels.cu, .gpubench) and, with --numba, cooplink.numba.segmented_reduce.

    python3 bench/segreduce/check_tail.py --gpubench .gpubench [--numba]
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import State, THREADS, adaptive, blocks_per_sm  # noqa: E402


def cases(rng):
    """(label, offsets) of each case."""
    chunk = adaptive.chunk_items(4)  # (float32: the tail's chunk)

    def of(lens):
        offs = np.zeros(len(lens) + 1, np.int64)
        np.cumsum(lens, out=offs[1:])
        return offs
    yield "len 32", of(np.full(1 << 17, 32))
    yield "len 8192", of(np.full(512, 8192))
    yield "1M x4", of(np.full(4, 1 << 20))
    a = rng.integers(0, 100, 20000)
    a[[5, 9000]] = [40 * chunk + 5, 3 * chunk]
    yield "short + 2 long (warp tail)", of(a)
    b = np.full(300, 9000)
    b[[7, 200]] = [70 * chunk + 1, 17 * chunk]
    yield "block + 2 long (block tail)", of(b)
    n = 40 * chunk  # overlapping offsets: the second long segment finds the queue full, is reduced in place
    yield "overlapping (queue full)", np.array([0, n, 0, n])
    short = of(np.full(10000, 64))  # the same in a warp kernel: the fourth long one finds the queue full
    yield "overlapping (warp, queue full)", np.concatenate([short, np.tile([0, short[-1]], 4)])
    c = rng.integers(0, 12, 300000)  # sr_run: a third empty, segments that start anywhere
    c[rng.random(c.size) < 0.33] = 0
    yield "empty + 1..11 (run)", of(c)
    d = rng.integers(1, 9000, 3000)  # lengths across tiles and runs, one long one deferred, empty ones
    d[[0, 17, 18, 2999]] = 0
    d[1000] = 40 * chunk + 3
    yield "0..9000 + long + empty (run)", of(d)


SPIN = r"""extern "C" __global__ void spin(long long cycles)
{ const long long t0 = clock64(); while (clock64() - t0 < cycles) {} }"""


def occupy(cp, sm_count):
    """Half of every SM's threads busy for about 20 ms, on a stream of its own: the call that follows on
    another stream cannot start every block of its grid at once (tail.cuh sr_queue: blocks that then take
    only free items, and leave)."""
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        cp.RawKernel(SPIN, "spin")((sm_count,), (1024,), (np.int64(40_000_000),))
    return s


def watch(cp, run, queue, label, busy=None, seconds=5.0):
    if busy:
        busy()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        e0 = cp.cuda.Event()
        e0.record(s)
        run()
        e = cp.cuda.Event()
        e.record(s)
    t0 = time.time()
    while not e.done:
        if time.time() - t0 > seconds:
            side = cp.cuda.Stream(non_blocking=True)
            host = cp.cuda.alloc_pinned_memory(32)
            cp.cuda.runtime.memcpyAsync(host.ptr, queue.data.ptr, 32, cp.cuda.runtime.memcpyDeviceToHost, side.ptr)
            side.synchronize()
            q = np.frombuffer(host, np.uint32, 8)  # tail.cuh sr_queue
            print(f"HANG {label}: queue chunks {q[0]} taken {q[1]} shared {q[2]} exited {q[3]} started {q[4]} "
                  f"dead {q[5]}", flush=True)
            os._exit(3)
        time.sleep(0.001)
    cp.cuda.Device().synchronize()
    return cp.cuda.get_elapsed_time(e0, e)


def check_numba(cp, label, p, d_x, d_off, d_out, ref, sm):
    """cooplink.numba.segmented_reduce on one case, three times (the third with half of the GPU busy),
    watched, with its own plan and then with plan p (the CUDA C one) where that differs: the number of
    failed calls."""
    from cooplink.numba import segmented
    own = segmented.chosen_plan(d_x.size, d_off.size - 1, 4)
    return sum(check_numba_plan(cp, label, q, d_x, d_off, d_out, ref, sm) for q in dict.fromkeys((own, p)))


def check_numba_plan(cp, label, p, d_x, d_off, d_out, ref, sm):
    from numba import cuda
    from cooplink.numba import segmented, segmented_reduce
    bad = 0
    ns = cuda.stream()
    for call in range(3):
        d_out.fill(np.nan)
        cp.cuda.Device().synchronize()
        if call == 2:
            occupy(cp, sm)
        segmented_reduce(d_x, d_off, d_out, "sum", stream=ns, plan=p)  # (the first call compiles)
        t0 = time.time()
        e = cuda.event()
        e.record(ns)
        while not e.query():
            if time.time() - t0 > 5:
                print(f"HANG numba {label}", flush=True)
                os._exit(3)
            time.sleep(0.01)
        bad += verdict("numba", f"{label:28} {p}", call, (time.time() - t0) * 1e3, cp.asnumpy(d_out), ref,
                       segmented.queue_words_left())
    return bad


def verdict(kind, what, call, ms, got, ref, left):
    """One call's outputs against the reference and the queue words it left non-zero: a line, and 1 if
    it failed."""
    wrong = int(np.count_nonzero(got != ref))
    ok = wrong == 0 and left == 0
    print(f"{'ok  ' if ok else 'FAIL'} {kind:5} {what}: call {call + 1}{' (GPU half busy)' if call == 2 else ''} "
          f"{ms:7.2f} ms, {wrong} wrong, {left} queue words left", flush=True)
    return 0 if ok else 1


def check_c(cp, m, sm, label, p, n, lens, d_x, d_off, d_out, ref):
    """Plan p's kernel on one case, three times (the third with half of the GPU busy), watched: the number
    of failed calls."""
    state = State(cp, n, lens.size, np.float32, p.defer)  # (the library's capacity: overlaps overflow it)
    f = m.get_function(p.kernel)
    grid, share = adaptive.grid(p, lens.size, sm, sm * blocks_per_sm(cp, f))
    bad = 0
    for call in range(3):
        d_out.fill(np.nan)
        cp.cuda.Device().synchronize()
        ms = watch(cp, lambda: f((grid,), (THREADS,), (d_x, d_off, d_out, np.int32(lens.size), np.int64(p.defer),
                                                       *state.args(), np.uint32(state.cap), np.uint32(share))),
                   state.queue, f"C {label} {p}", busy=(lambda: occupy(cp, sm)) if call == 2 else None)
        bad += verdict("C", f"{label:28} {p} grid {grid}", call, ms, cp.asnumpy(d_out), ref, state.left())
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpubench", default=".gpubench")
    ap.add_argument("--numba", action="store_true")
    args = ap.parse_args()
    import cupy as cp
    m = cp.RawModule(path=os.path.join(args.gpubench, "f32-sum", "cooplink.cubin"))
    sm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    bad = 0
    # the CUDA C kernels first, every case, then the Numba ones (a hang ends the process)
    for numba_pass, (label, offs) in [(nb, c) for nb in ((False, True) if args.numba else (False,))
                                      for c in cases(np.random.default_rng(5))]:
        n = int(offs.max())
        lens = np.diff(offs)
        x = (np.random.default_rng(n).integers(-64, 65, n) / 8).astype(np.float32)
        ref = np.array([x[offs[i]:offs[i + 1]].astype(np.float64).sum() for i in range(lens.size)], np.float32)
        assert lens.min() >= 0 or label.startswith("overlapping")
        d_x, d_off = cp.asarray(x), cp.asarray(offs.astype(np.int32))
        d_out = cp.full(lens.size, np.nan, cp.float32)
        p = adaptive.choose(n, lens.size, 4)
        if numba_pass:
            bad += check_numba(cp, label, p, d_x, d_off, d_out, ref, sm)
            continue
        # the chosen plan, then sr_run (a block per run of consecutive segments) and sr_warp<8, 32>t
        # (several tiles a segment at once) with the same deferral
        for plan in (p, adaptive.Plan("run", 0, p.defer), adaptive.Plan("warpt", 8, p.defer),
                     adaptive.Plan("warpt", 32, p.defer)):
            bad += check_c(cp, m, sm, label, plan, n, lens, d_x, d_off, d_out, ref)
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
