"""bench.py --numba: the Numba kernels of cooplink.numba.segmented (the library function's; the same
algorithms, tiles, lane counts and launch bounds as kernels.cu) timed beside the CUDA C ones: the fixed
kernels (block, run, warp8/16/32: no tail) and `segmented_reduce` itself, which picks its kernel by the plan
both share and launches it once.

    k = Kernels(); k.add(R, cp, op, d_x, d_off, d_out, n_seg, bytes_, sm_count)
"""

import numpy as np

THREADS = 256


class Kernels:
    def __init__(self, explore_min_blocks=()):
        from numba import cuda
        from cooplink.numba import segmented
        self.cuda, self.seg = cuda, segmented
        self.explore_min_blocks = explore_min_blocks

    def add(self, R, cp, op, d_x, d_off, d_out, n_seg, bytes_, sm_count):
        cuda, seg = self.cuda, self.seg
        x, o, out = cuda.as_cuda_array(d_x), cuda.as_cuda_array(d_off), cuda.as_cuda_array(d_out)
        dt = np.dtype(d_x.dtype).str
        # the fixed kernels: no tail (its arrays are never touched)
        z32, z64, zt = (cuda.device_array(1, t) for t in (np.uint32, np.uint64, d_x.dtype))
        fixed = (np.int32(0), out, np.int32(n_seg), np.int32(2 ** 31 - 1), np.int32(0), z32, z64, zt, z32,
                 np.uint32(0), np.uint32(0))
        def resources(label, disp):  # after the first run (which compiled it)
            if label in R.info and "error" not in R.info[label]:
                ov = list(disp.overloads.values())
                R.info[label].update(regs=max(v.regs_per_thread for v in ov),
                                     local=max(v.local_mem_per_thread for v in ov))

        k = seg.kernel(dt, op, "sr_block")
        R.add("numba block", lambda: k[n_seg, THREADS](x, o, *fixed), d_out, bytes_)
        resources("numba block", k)
        r = seg.kernel(dt, op, "sr_run")
        rgrid = seg._segplan.fixed_grid("run", 0, n_seg, sm_count)
        R.add("numba run", lambda: r[rgrid, THREADS](x, o, *fixed), d_out, bytes_)
        resources("numba run", r)
        for L in (8, 16, 32):
            for mb in (None,) + tuple(self.explore_min_blocks):
                g = seg.kernel(dt, op, f"sr_warp{L}", mb)
                grid = seg._segplan.fixed_grid("warp", L, n_seg, sm_count)
                label = f"numba warp{L}" + (f" ({mb} blocks/SM)" if mb else "")
                R.add(label, (lambda g, grid: lambda: g[grid, THREADS](x, o, *fixed))(g, grid), d_out, bytes_)
                resources(label, g)
        p = seg.chosen_plan(d_x.size, n_seg, d_x.dtype.itemsize)
        if p.first not in ("block", "run"):  # the plan's kernel without the one launch's tail, on its grid
            a = seg.kernel(dt, op, p.kernel)  # (bench.py's "alone", the same for C)
            resident = seg._resident(a, (x, o, *fixed))
            label = "numba alone"
            R.add(label, lambda: a[resident, THREADS](x, o, *fixed), d_out, bytes_,
                  {"kernel": f"{p.kernel}, grid {resident}"})
            resources(label, a)
        R.add("numba adaptive", lambda: seg.segmented_reduce(x, o, out, op), d_out, bytes_, {"plan": str(p)})
        resources("numba adaptive", seg.kernel(dt, op, p.kernel))
        left = seg.queue_words_left()
        if left and "wrong" in R.info.get("numba adaptive", {}):  # a call must leave the queue zeroed
            R.info["numba adaptive"]["wrong"] += 1
            R.info["numba adaptive"]["first_wrong"] = f"{left} queue words left non-zero"
