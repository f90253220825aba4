"""Segmented sum and max over 1 GiB on the GPU: cooplink's kernels against every baseline, in one run.

Inputs (prepared here by bench/segreduce/prepare.sh, carried as .gpubench): per type and operator the
kernels of kernels.cu linked by cooplink (cooplink.cubin), the same whole program through NVRTC + nvJitLink
(whole.cubin) and through nvcc (nvcc.cubin), baselines.cu (the read ceiling and the talk's kernel), and
cub::DeviceSegmentedReduce in a shared library. torch.segment_reduce comes from the host; the Numba kernels
from cooplink.numba (bench/segreduce/numba_kernels.py), when the wheel is installed.

Data: 1 GiB of float32, float64 or int32 (multiples of 1/8 in [-8, 8] for floats, integers in [-8, 8]:
every sum is exact in each type, so results are compared for equality with a float64/int64 host reference).
Every kernel's output is poisoned, the kernel run once and checked; only then is it timed. Timing: rounds
in rotating order; in each round a kernel runs `reps` times back to back between two events, queued
behind a kernel that holds the stream (a spin on the GPU's timer) for longer than the host takes to queue
them, so that a slow launch path (Numba's, the library function's checks) leaves the GPU no idle gap and
the figure is the kernels' own time; the host's time to queue a launch is reported beside it (`host_ms`;
a kernel slower than 8x the read ceiling and 5 ms: the faster of its first two runs, the first checked,
marked untimed). With `--l2 cold` each launch is instead timed alone between its own events, after an L2
flush (Runner.flush_l2): back to back, a launch finds in L2 what the one before left there, its offsets and
results where they fit (16 MiB at 128 items a segment: a kernel whose loads stream past L2, by ld.cs, keeps them
there from launch to launch, and its results' dirty lines are never written back within the timed runs); cold,
none is left. Figures are medians over rounds; ratios are medians of per-round ratios. Bytes counted:
input, offsets and output. The read ceiling (baselines.cu read_bw and read_bw_cs, by ld.global.nc and by
ld.global.cs: the faster) is measured in every configuration's rounds, and each kernel's share is of the
ceiling measured beside it.

    python3 bench/segreduce/bench.py --gpubench .gpubench --out DIR [--rounds 5] [--types f32,f64,i32]
        [--lengths 32,128,...] [--ops sum,max] [--numba] [--l2 warm|cold]
"""

import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

N_BYTES = 1 << 30
THREADS = 256
TYPES = {"f32": (np.float32, 4), "f64": (np.float64, 2), "i32": (np.int32, 4)}
LENGTHS = ["32", "128", "1024", "8192", "65536", "1M", "random", "heavy"]
MAX_KERNEL_MS = 200.0   # a kernel whose first two runs take longer is reported from the faster alone
CEILINGS = (("read_bw", ""), ("read_bw_cs", " cs"))  # the read ceiling's kernels (baselines.cu), label suffixes
SLOW_FACTOR, SLOW_MS = 8.0, 5.0  # so is one slower than both (SLOW_FACTOR x the read ceiling's run, SLOW_MS)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _load_plan():
    """cooplink.numba's plan (pure Python), by path: the CUDA C kernels run without the package."""
    import importlib.util
    path = os.path.join(HERE, "..", "..", "python", "cooplink", "numba", "_segplan.py")
    spec = importlib.util.spec_from_file_location("segplan", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["segplan"] = mod  # (dataclasses looks the module up)
    spec.loader.exec_module(mod)
    return mod


adaptive = _load_plan()
# other plans timed beside the chosen one (--explore): (first stage, lanes, defer in items or, negative, in
# chunks)
EXPLORE = [("wrun", 32, 8192), ("run", 0, 8192), ("run", 0, -4), ("warp", 8, 8192), ("warp", 16, 8192),
           ("warp", 32, 8192), ("warpu", 16, 8192), ("warpu", 32, 8192), ("warpu", 32, -4), ("block", 0, -1),
           ("block", 0, -4), ("block", 0, -64), ("warpt", 8, 8192), ("warpt", 16, 8192), ("warpt", 32, 8192)]


class State:
    """The adaptive kernels' queue, work items, partials and counters (zeroed once; a call leaves them
    zeroed), large enough for any deferral of `defer` items or more (0: any plan)."""

    def __init__(self, cp, n, n_seg, dtype, defer=0, chunk_bytes=None):
        size = np.dtype(dtype).itemsize
        self.chunk = chunk_bytes // size if chunk_bytes else adaptive.chunk_items(size)
        cap = adaptive.work_capacity(n, n_seg, size, defer, self.chunk)
        self.queue = cp.zeros(8, cp.uint32)  # tail.cuh sr_queue
        self.cap = cap
        self.items = cp.zeros(cap, cp.uint64)
        self.partial = cp.zeros(cap, dtype)
        self.done = cp.zeros(cap, cp.uint32)

    def args(self):
        return self.queue, self.items, self.partial, self.done

    def left(self):
        """Non-zero words left in the queue, the items and the counters (a call must leave 0)."""
        return sum(int(a.astype(bool).sum()) for a in (self.queue, self.items, self.done))


def lengths_for(dist, n, rng):
    """Segment lengths (int64, each >= 1) that sum to n."""
    if dist.isdigit() or dist.endswith("M"):
        seg = int(dist[:-1]) << 20 if dist.endswith("M") else int(dist)
        return np.full(n // seg, seg, np.int64)
    if dist == "random":  # exponential, mean 2000
        lens = np.maximum(1, np.rint(rng.exponential(2000.0, size=n // 2000 + 10000))).astype(np.int64)
    elif dist in ("heavy", "heavy-short", "heavy-long"):  # half the items in six segments of millions, the rest
        # in short ones (mean 64); (--lengths heavy-short, heavy-long: either half alone over all n items, to
        # tell which of the two limits the mix)
        frac = np.array([0.4, 0.2, 0.16, 0.1, 0.08, 0.06])
        if dist == "heavy-long":
            lens = (frac * n).astype(np.int64)
            lens[0] += n - lens.sum()
            return rng.permutation(lens)
        big = (frac * (n // 2)).astype(np.int64) if dist == "heavy" else np.zeros(0, np.int64)
        short = np.maximum(1, np.rint(rng.exponential(64.0, size=(n - big.sum()) // 64 + 10000))).astype(np.int64)
        c = np.cumsum(short)
        short = short[:np.searchsorted(c, n - big.sum())]
        short = np.append(short, n - big.sum() - short.sum())
        lens = rng.permutation(np.concatenate([big, short[short > 0]]))
        assert lens.sum() == n
        return lens
    else:
        raise ValueError(dist)
    c = np.cumsum(lens)
    k = np.searchsorted(c, n)
    lens = lens[:k + 1].copy()
    lens[-1] -= c[k] - n
    return lens[lens > 0]


class Runner:
    """The kernels of one (type, operator, lengths) configuration: launchers, checks, timing."""

    verbose = False  # (--verbose: each kernel's first run on stderr as it happens)
    l2 = "warm"  # (--l2 cold: each timed launch alone, after flush_l2)
    builds = ("cooplink", "whole", "nvcc")  # (--profile: cooplink's alone)
    order = None  # (--profile: the label of every launch, in order, to name ncu's rows)

    def __init__(self, cupy, ref, poison):
        self.cp, self.ref, self.poison = cupy, ref, poison
        self.launch, self.info, self.out = {}, {}, {}
        self.config = ""  # (--profile: the type and operator, named with each launch)

    def add(self, label, launch, out, bytes_, info=None, check=True):
        cp = self.cp
        if out is not None and not callable(out):  # (a callable: the output is new each run)
            out.fill(self.poison)
        cp.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        if Runner.order is not None:
            Runner.order.append(f"{self.config} {label}")
        try:
            launch()
            cp.cuda.runtime.deviceSynchronize()
        except Exception as e:  # noqa: BLE001 (reported in the table, e.g. a dtype torch refuses)
            self.info[label] = {"error": f"{type(e).__name__}: {str(e)[:120]}"}
            return
        first_ms = (time.perf_counter() - t0) * 1e3
        if self.verbose:
            print(f"  {label}: first run {first_ms:.1f} ms", file=sys.stderr, flush=True)
        r = dict(info or {}, bytes=bytes_, first_ms=first_ms)
        if check:
            got = cp.asnumpy(out() if callable(out) else out)
            bad = np.flatnonzero(got != self.ref)
            r["checked"] = int(got.size)
            r["wrong"] = int(bad.size)
            if bad.size:
                i = bad[0]
                r["first_wrong"] = f"segment {i}: got {got[i]!r}, want {self.ref[i]!r}"
        slow = min(MAX_KERNEL_MS, max(SLOW_MS, SLOW_FACTOR * getattr(self, "ceiling_ms", MAX_KERNEL_MS)))
        if first_ms > slow and Runner.order is None:  # (a Numba kernel's first call compiles it, torch's first
            # call of a run starts its library, 17-87 ms, which was its figure there until 2026-12-04: the second
            # tells; under --profile, ncu's replays make every run slow)
            t0 = time.perf_counter()
            launch()
            cp.cuda.runtime.deviceSynchronize()
            r["second_ms"] = (time.perf_counter() - t0) * 1e3
            first_ms = min(first_ms, r["second_ms"])
        self.info[label] = r
        if label.startswith("read ceiling"):
            self.ceiling_ms = min(first_ms, getattr(self, "ceiling_ms", first_ms))
        # timed in rounds unless hopeless: a kernel 8 times slower than the ceiling (and past 5 ms) is reported
        # from its checked run, a figure no conclusion depends on (rounds of them took minutes of the GPU)
        if first_ms <= slow:
            self.launch[label] = launch

    SPIN = r"""extern "C" __global__ void spin(unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}"""

    def hold(self, ms):
        """Holds the stream for `ms` on the GPU (what is queued next starts no earlier)."""
        if not hasattr(self, "_spin"):
            self._spin = self.cp.RawKernel(self.SPIN, "spin")
        self._spin((1,), (1,), (np.uint64(int(ms * 1e6)),))

    # An L2 flush: l2_fill reads four L2s of zeros under an evict_last policy, so that every line the launch
    # before left there is replaced, evict_last ones too (the el builds' results), its dirty lines written back
    # now and not during the next launch; l2_demote then puts each line it read back to normal priority, so
    # that the next launch has the whole L2 (applypriority: sm_80 and up).
    FLUSH = r"""extern "C" __global__ void l2_fill(const int4* p, unsigned long long n, int* sink)
{
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  int a = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
  {
    int x, y, z, w;
    asm volatile("ld.global.L2::cache_hint.v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(p + i), "l"(pol));
    a ^= x ^ y ^ z ^ w;
  }
  if (a == 0x5A5A5A5A)  // (never: the buffer is zeros)
    *sink = a;
}
extern "C" __global__ void l2_demote(const int4* p, unsigned long long n)
{
  for (unsigned long long i = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) * 8; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x * 8)
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p + i) : "memory");
}"""

    def flush_l2(self):
        """Queues the L2 flush (FLUSH) on the stream: what is queued next finds nothing of what ran before in L2."""
        cp = self.cp
        if not hasattr(self, "_l2"):
            props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
            n = 4 * props["l2CacheSize"] // 16  # (int4s: four L2s)
            mod = cp.RawModule(code=self.FLUSH)
            self._l2 = (cp.zeros(4 * n, cp.int32), np.uint64(n), cp.zeros(1, cp.int32), mod.get_function("l2_fill"),
                        mod.get_function("l2_demote"), 4 * props["multiProcessorCount"])
        buf, n, sink, fill, demote, grid = self._l2
        fill((grid,), (THREADS,), (buf, n, sink))
        demote((grid,), (THREADS,), (buf, n))

    def time(self, rounds, budget_ms=40.0):
        cp = self.cp
        labels = list(self.launch) if rounds else []  # (0 rounds: --profile, each kernel's checked run only)
        cold = Runner.l2 == "cold"
        reps, hold = {}, {}
        for label in labels:  # warm-up, the host's time to queue a launch, and the launches per round
            launch = self.launch[label]
            launch()
            cp.cuda.runtime.deviceSynchronize()
            self.hold(5.0)
            t0 = time.perf_counter()
            for _ in range(3):
                if cold:
                    self.flush_l2()
                launch()
            host_ms = (time.perf_counter() - t0) / 3 * 1e3
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            self.hold(2 * host_ms + 0.05)
            e0.record()
            launch()
            e1.record()
            e1.synchronize()
            ms = cp.cuda.get_elapsed_time(e0, e1)
            reps[label] = max(2, min(20, int(budget_ms / max(ms, 1e-3))))
            hold[label] = 1.5 * host_ms * reps[label] + 0.05
            self.info[label]["host_ms"] = host_ms
        times = {label: [] for label in labels}
        for r in range(rounds):
            for label in labels[r % len(labels):] + labels[:r % len(labels)]:
                if cold:  # (each launch between its own events, the flush outside them)
                    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps[label])]
                    self.hold(hold[label])
                    for e0, e1 in events:
                        self.flush_l2()
                        e0.record()
                        self.launch[label]()
                        e1.record()
                    events[-1][1].synchronize()
                    times[label].append(statistics.fmean(cp.cuda.get_elapsed_time(e0, e1) for e0, e1 in events))
                    continue
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                self.hold(hold[label])
                e0.record()
                for _ in range(reps[label]):
                    self.launch[label]()
                e1.record()
                e1.synchronize()
                times[label].append(cp.cuda.get_elapsed_time(e0, e1) / reps[label])
        for label in labels:
            ms = statistics.median(times[label])
            self.info[label].update(ms=ms, times=times[label], gbs=self.info[label]["bytes"] / ms / 1e6)
        for label, r in self.info.items():
            if "ms" not in r and "first_ms" in r:  # too slow to time in rounds: its faster untimed run
                ms = min(r["first_ms"], r.get("second_ms", r["first_ms"]))
                r.update(ms=ms, gbs=r["bytes"] / ms / 1e6, untimed=True)

    def ratio(self, a, b):
        ta, tb = self.info.get(a, {}).get("times"), self.info.get(b, {}).get("times")
        if not ta or not tb:
            return None
        return statistics.median(x / y for x, y in zip(ta, tb))


def blocks_per_sm(cp, f, threads=THREADS):
    """cuOccupancyMaxActiveBlocksPerMultiprocessor of a cupy kernel."""
    ptr = f.kernel.ptr
    try:
        return cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(ptr, threads, 0)
    except AttributeError:
        n = ctypes.c_int()
        rc = ctypes.CDLL("libcuda.so.1").cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(n), ctypes.c_void_p(ptr), threads, ctypes.c_size_t(0))
        assert rc == 0, f"cuOccupancyMaxActiveBlocksPerMultiprocessor: {rc}"
        return n.value


def make_input(cp, tc):
    """1 GiB of type tc on the GPU and its float64 (int64) host copy: multiples of 1/8 in [-8, 8] for
    floats, integers in [-8, 8]: every sum and prefix is exact in each type."""
    dtype, _ = TYPES[tc]
    n = N_BYTES // np.dtype(dtype).itemsize
    if dtype == np.int32:
        d_x = cp.random.randint(-8, 9, n, dtype=cp.int32)
        return d_x, cp.asnumpy(d_x).astype(np.int64)
    d_x = (cp.random.randint(-64, 65, n, dtype=cp.int32).astype(dtype) / dtype(8)).astype(dtype)
    return d_x, cp.asnumpy(d_x).astype(np.float64)


def run_config(cp, mods, cub, numba_k, tc, op, dist, d_x, x64, rounds, rng, sm_count, torch, explore):
    dtype, vec = TYPES[tc]
    size = np.dtype(dtype).itemsize
    n = d_x.size
    lens = lengths_for(dist, n, rng)
    n_seg = lens.size
    offs = np.zeros(n_seg + 1, np.int64)
    np.cumsum(lens, out=offs[1:])
    starts = offs[:-1]
    # (a fixed length that does not divide n leaves the last n % length items out of every segment)
    ref64 = (np.add if op == "sum" else np.maximum).reduceat(x64[:offs[-1]], starts)
    ref = ref64.astype(dtype)
    assert np.array_equal(ref.astype(ref64.dtype), ref64) or dtype == np.int32, "the sums must be exact"
    d_off = cp.asarray(offs.astype(np.int32))
    d_out = cp.empty(n_seg, dtype)
    poison = np.nan if dtype != np.int32 else np.int32(0x5A5A5A5A)
    R = Runner(cp, ref, poison)
    R.config = f"{tc} {op}"
    bytes_ = int(offs[-1]) * size + (n_seg + 1) * 4 + n_seg * size
    state = State(cp, n, n_seg, dtype)
    huge = np.int64(1 << 62)
    null = np.uintp(0)

    # the read ceiling, beside every configuration
    sink = cp.zeros(1, cp.int32)
    n_vec = np.int64(n * size // 16)
    for name, suffix in CEILINGS:
        rb = mods["baselines"].get_function(name)
        for g in (8, 16, 32):
            R.add(f"read ceiling{suffix} x{g}",
                  (lambda rb, g: lambda: rb((sm_count * g,), (THREADS,), (d_x, n_vec, sink)))(rb, g),
                  None, n * size, check=False)

    def warp_grid(L):
        return adaptive.fixed_grid("warp", L, n_seg, sm_count)

    def fixed(build):
        m = mods[build]
        info = lambda f: {"regs": f.num_regs, "local": f.local_size_bytes}
        f = m.get_function("sr_block")
        none = (null, null, null, null, np.uint32(0), np.uint32(0))  # no queue: the fixed kernel alone
        R.add(f"{build} block", lambda: f((n_seg,), (THREADS,), (d_x, d_off, d_out, np.int32(n_seg), huge, *none)),
              d_out, bytes_, info(f))
        fr = m.get_function("sr_run")
        R.add(f"{build} run", lambda: fr((adaptive.fixed_grid("run", 0, n_seg, sm_count),), (THREADS,), (
            d_x, d_off, d_out, np.int32(n_seg), huge, *none)), d_out, bytes_, info(fr))
        for L, u in [(L, u) for u in ("", "u") for L in (4, 8, 16, 32)]:
            g = m.get_function(f"sr_warp{L}{u}")
            R.add(f"{build} warp{L}{u}", (lambda g, grid: lambda: g((grid,), (THREADS,), (
                d_x, d_off, d_out, np.int32(n_seg), huge, *none)))(g, warp_grid(L)), d_out, bytes_, info(g))
        fw = m.get_function("sr_wrun")
        R.add(f"{build} wrun", lambda: fw((adaptive.fixed_grid("wrun", 32, n_seg, sm_count),), (THREADS,), (
            d_x, d_off, d_out, np.int32(n_seg), huge, *none)), d_out, bytes_, info(fw))
        names = [f"sr_warp{L}{u}" for L in (4, 8, 16, 32) for u in ("", "u")] + ["sr_block", "sr_run", "sr_wrun"] + [
            f"sr_warp{L}t" for L in (8, 16, 32)]
        k = {name: m.get_function(name) for name in names}

        def adaptive_launch(p, kernels=k, st=state):
            f = kernels[p.kernel]
            grid, share = adaptive.grid(p, n_seg, sm_count, sm_count * blocks_per_sm(cp, f))

            def run():
                f((grid,), (THREADS,), (d_x, d_off, d_out, np.int32(n_seg), np.int64(p.defer), *st.args(),
                                        np.uint32(st.cap), np.uint32(share)))
            return run

        def add_queued(key, launch, st, info):
            """R.add of a launch through the queue `st`, which a call must leave zeroed."""
            R.add(key, launch, d_out, bytes_, info)
            left = st.left()
            if left and "wrong" in R.info[key]:
                R.info[key]["wrong"] += 1
                R.info[key]["first_wrong"] = f"{left} queue words left non-zero"

        p = adaptive.choose(n, n_seg, size)
        # (its own name: the lambdas above call `f`, sr_block, when timed; until 2026-12-03 this line rebound
        # it, so "block" was timed as the plan's kernel on a block's grid wherever the plan was not sr_block)
        fa = k[p.kernel]
        add_queued(f"{build} adaptive", adaptive_launch(p), state,
                   {"regs": fa.num_regs, "local": fa.local_size_bytes, "plan": str(p)})
        resident = sm_count * blocks_per_sm(cp, fa)

        def alone():  # the plan's kernel without the one launch's queue, on its grid (report.py: what it tells)
            fa((resident,), (THREADS,), (d_x, d_off, d_out, np.int32(n_seg), huge, *none))
        if p.first not in ("block", "run"):
            R.add(f"{build} alone", alone, d_out, bytes_,
                  {"regs": fa.num_regs, "local": fa.local_size_bytes, "kernel": f"{p.kernel}, grid {resident}"})
        if explore and build == "cooplink":
            for first, lanes, defer in EXPLORE:
                q = adaptive.Plan(first, lanes, defer if defer > 0 else -defer * state.chunk)
                if q != p:
                    R.add(f"plan {q}", adaptive_launch(q), d_out, bytes_, {"plan": str(q)})
            for v in [v for v in mods if v.startswith("variant ")]:  # other builds of the kernels (--variants):
                kv = {name: mods[v].get_function(name) for name in names}  # the plan and the explored warp plans
                ck = re.fullmatch(r"chunk(\d+)k", v[8:])  # (a build of other chunks: a queue of its own)
                sv = State(cp, n, n_seg, dtype, chunk_bytes=int(ck[1]) * 1024) if ck else state
                for q in dict.fromkeys([p] + [adaptive.Plan(f, L, d) for f, L, d in EXPLORE if f.startswith("warp")
                                              and d == 8192]):
                    add_queued(f"plan {q} [{v[8:]}]", adaptive_launch(q, kv, sv), sv, {"plan": str(q)})
            if p.first == "block":  # sr_block's one launch with other numbers of tail blocks (its own: two an SM)
                for per_sm in (1, 4, resident // sm_count):
                    g, tail = adaptive.grid(p, n_seg, sm_count, resident, tail_per_sm=per_sm)

                    def with_tail(g=g, tail=tail):
                        fa((g,), (THREADS,), (d_x, d_off, d_out, np.int32(n_seg), np.int64(p.defer), *state.args(),
                                              np.uint32(state.cap), np.uint32(tail)))
                    R.add(f"plan {p}, {tail} tail blocks", with_tail, d_out, bytes_, {"plan": str(p)})
            # the one launch's grid: the plan's kernel alone on the resident grid, and the one launch on
            # the fixed kernel's grid (P7 holds for any grid: tickets only once every block has started)
            fg = adaptive.fixed_grid(p.first, p.lanes, n_seg, sm_count)
            if p.first == "block":  # (the warp plans' kernel alone on the resident grid: "cooplink alone")
                R.add(f"{p.kernel} alone, resident grid {resident}", alone, d_out, bytes_)

            def on_fixed_grid():
                fa((fg,), (THREADS,), (d_x, d_off, d_out, np.int32(n_seg), np.int64(p.defer), *state.args(),
                                      np.uint32(state.cap), np.uint32(fg)))
            if p.first != "block":  # (sr_block's one launch is on its fixed grid and more)
                R.add(f"adaptive on the fixed grid {fg}", on_fixed_grid, d_out, bytes_)

    for build in Runner.builds:
        fixed(build)
    tree = mods["baselines"].get_function("sr_tree")
    R.add("talk's shared-memory tree", lambda: tree((n_seg,), (THREADS,), (d_x, d_off, d_out)), d_out, bytes_)
    # cub::DeviceSegmentedReduce
    fn = getattr(cub, f"cub_sr_{op}_{tc}")
    tb = ctypes.c_size_t(0)
    args = lambda t: (ctypes.c_void_p(t), ctypes.byref(tb), ctypes.c_void_p(d_x.data.ptr),
                      ctypes.c_void_p(d_out.data.ptr), ctypes.c_int(n_seg), ctypes.c_void_p(d_off.data.ptr),
                      ctypes.c_void_p(0))
    assert fn(*args(0)) == 0
    temp = cp.empty(max(1, tb.value), cp.uint8)

    def cub_launch():
        e = fn(*args(temp.data.ptr))
        if e:
            raise RuntimeError(f"cub::DeviceSegmentedReduce: error {e}")
    R.add("cub::DeviceSegmentedReduce", cub_launch, d_out, bytes_)
    # torch.segment_reduce
    if torch is not None:
        t_x = torch.as_tensor(d_x, device="cuda")
        t_off = torch.as_tensor(cp.asarray(offs), device="cuda")
        holder = {}

        def torch_launch():
            holder["o"] = torch.segment_reduce(t_x, "sum" if op == "sum" else "max", offsets=t_off, axis=0)
        R.add("torch.segment_reduce", torch_launch, lambda: cp.asarray(holder["o"]), bytes_)
    if numba_k is not None:
        numba_k.add(R, cp, op, d_x, d_off, d_out, n_seg, bytes_, sm_count)
    R.time(rounds)
    res = {"type": tc, "op": op, "lengths": dist, "segments": int(n_seg), "bytes": int(bytes_), "block_timed_right": True,
           "kernels": {k: {kk: vv for kk, vv in v.items() if kk != "times"} for k, v in R.info.items()}}
    ceil = max(R.info[f"read ceiling{suffix} x{g}"].get("gbs", 0) for _, suffix in CEILINGS for g in (8, 16, 32))
    res["kernels"]["read ceiling"] = {"gbs": ceil, "bytes": n * size,
                                      "note": "the fastest of the three grids, by ld.global.nc or ld.global.cs"}
    for label, r in res["kernels"].items():
        if ceil and "gbs" in r:
            r["share"] = r["gbs"] / ceil
    res["ratios"] = {}
    for kern in ("block", "run", "warp4", "warp8", "warp16", "warp32", "warp4u", "warp8u", "warp16u", "warp32u",
                 "alone", "adaptive"):
        for other in ("whole", "nvcc"):
            v = R.ratio(f"cooplink {kern}", f"{other} {kern}")
            if v is not None:
                res["ratios"][f"cooplink {kern} / {other}"] = v
        if numba_k is not None:
            v = R.ratio(f"numba {kern}", f"cooplink {kern}")
            if v is not None:
                res["ratios"][f"numba {kern} / cooplink"] = v
    return res


def gpu_facts(cp):
    q = "name,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,driver_version,power.draw,temperature.gpu"
    try:
        smi = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        smi = f"nvidia-smi: {e}"
    props = cp.cuda.runtime.getDeviceProperties(0)
    return {"nvidia-smi (" + q + ")": smi, "name": props["name"].decode(),
            "sm_count": props["multiProcessorCount"], "cuda runtime": cp.cuda.runtime.runtimeGetVersion(),
            "driver": cp.cuda.runtime.driverGetVersion()}


def add_l2_argument(ap):
    ap.add_argument("--l2", choices=("warm", "cold"), default="warm",
                    help="warm: each kernel timed in runs of launches back to back (what one launch leaves in L2 the "
                         "next finds); cold: each launch alone, after an L2 flush (Runner.flush_l2)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpubench", default=".gpubench")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--types", default="f32,f64,i32")
    ap.add_argument("--ops", default="sum,max")
    ap.add_argument("--lengths", default=",".join(LENGTHS))
    ap.add_argument("--numba", action="store_true", help="also the Numba kernels (cooplink.numba installed)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--explore", action="store_true", help="also other plans of the adaptive launcher (sums)")
    ap.add_argument("--variants", default="", help="with --explore: other builds of a type's sum kernels to time "
                    "the plans with, .gpubench/<type>-sum-<name> (prepare.sh; a type without that build is timed "
                    "without it), comma-separated (chunk<K>k: chunks of K KB, with a queue of that size)")
    ap.add_argument("--builds", default=",".join(Runner.builds),
                    help="the kernels' builds to time (cooplink, whole, nvcc: the zero-overhead check needs all)")
    ap.add_argument("--verbose", action="store_true", help="each kernel's first run on stderr as it happens")
    add_l2_argument(ap)
    ap.add_argument("--profile", action="store_true",
                    help="each cooplink kernel, the read ceiling and CUB run once, checked, not timed (for ncu: "
                         "bench/segreduce/device.sh profile)")
    args = ap.parse_args()
    Runner.verbose, Runner.l2 = args.verbose, args.l2
    builds = tuple(args.builds.split(","))
    if not builds or not set(builds) <= set(Runner.builds) or "cooplink" not in builds:
        ap.error(f"--builds: cooplink and any of {', '.join(Runner.builds[1:])}, not {args.builds!r}")
    Runner.builds = builds
    variants = [v for v in args.variants.split(",") if v] if args.explore else []
    for v in variants:  # (a type without the build is timed without it; a name no type has is a mistake)
        if not any(os.path.exists(os.path.join(args.gpubench, f"{tc}-sum-{v}")) for tc in args.types.split(",")):
            ap.error(f"--variants {v}: no .gpubench/<type>-sum-{v} for the types {args.types} (prepare.sh builds them)")
    if args.profile:
        args.rounds, args.no_torch = 0, True  # (--numba kept: its kernels profiled beside the CUDA C ones)
        Runner.builds, Runner.order = ("cooplink",), []
    import cupy as cp
    torch = None
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            torch = None
    numba_k = None
    if args.numba:
        import numba_kernels
        numba_k = numba_kernels.Kernels(explore_min_blocks=(6,) if args.explore else ())
    facts = gpu_facts(cp)
    sm_count = facts["sm_count"]
    cub = ctypes.CDLL(os.path.join(args.gpubench, "cub_baselines.so"))
    os.makedirs(args.out, exist_ok=True)
    results = {"command": " ".join(sys.argv), "gpu_before": facts, "configs": [], "l2": args.l2,
               "versions": {"torch": getattr(torch, "__version__", None), "cupy": cp.__version__,
                            "numpy": np.__version__}}
    rng = np.random.default_rng(20261201)
    t_start = time.time()
    for tc in args.types.split(","):
        d_x, x64 = make_input(cp, tc)
        for op in args.ops.split(","):
            mods = {b: cp.RawModule(path=os.path.join(args.gpubench, f"{tc}-{op}", f"{b}.cubin"))
                    for b in ("cooplink", "whole", "nvcc", "baselines")
                    if os.path.exists(os.path.join(args.gpubench, f"{tc}-{op}", f"{b}.cubin"))}
            for v in variants if op == "sum" else []:
                path = os.path.join(args.gpubench, f"{tc}-sum-{v}", "cooplink.cubin")  # (prepare.sh's builds)
                if os.path.exists(path):
                    mods[f"variant {v}"] = cp.RawModule(path=path)
            for dist in args.lengths.split(","):
                t0 = time.time()
                res = run_config(cp, mods, cub, numba_k, tc, op, dist, d_x, x64, args.rounds, rng, sm_count,
                                 torch, args.explore and op == "sum")
                res["seconds"] = time.time() - t0
                results["configs"].append(res)
                with open(os.path.join(args.out, "segreduce.json"), "w") as f:  # (kept if the run is cut short)
                    json.dump(results, f, indent=1)
                k = res["kernels"]
                print(f"{tc} {op:3} {dist:>6}: ceiling {k['read ceiling'].get('gbs', 0):6.0f} GB/s | " +
                      " | ".join(f"{lab.replace('cooplink ', '')} {v['share']:.3f}" for lab, v in k.items()
                                 if lab.startswith(("cooplink", "plan")) and "share" in v) +
                      f" | cub {k['cub::DeviceSegmentedReduce'].get('share', 0):.3f}" +
                      f" | wrong {sum(v.get('wrong', 0) for v in k.values())} ({res['seconds']:.0f} s)",
                      flush=True)
            del mods
        del d_x, x64
    if Runner.order is not None:
        with open(os.path.join(args.out, "launches.txt"), "w") as f:
            f.write("".join(label + "\n" for label in Runner.order))
    results["gpu_after"] = gpu_facts(cp)
    results["seconds"] = time.time() - t_start
    with open(os.path.join(args.out, "segreduce.json"), "w") as f:
        json.dump(results, f, indent=1)
    wrong = sum(v.get("wrong", 0) for c in results["configs"] for v in c["kernels"].values())
    errors = [f"{c['type']} {c['op']} {c['lengths']} {k}: {v['error']}" for c in results["configs"]
              for k, v in c["kernels"].items() if "error" in v]
    print(f"{len(results['configs'])} configurations in {results['seconds']:.0f} s; wrong results: {wrong}")
    for e in errors:
        print("error:", e)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
