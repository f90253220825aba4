import ctypes, time, statistics, random
jl=ctypes.CDLL('/usr/local/cuda/lib64/libnvJitLink.so')
LTOIR=3; FATBIN=4
def link(inputs, opts):
    h=ctypes.c_void_p(); o=(ctypes.c_char_p*len(opts))(*[x.encode() for x in opts])
    t=time.perf_counter()
    assert jl.nvJitLinkCreate(ctypes.byref(h),len(opts),o)==0
    for kind,data,name in inputs: assert jl.nvJitLinkAddData(h,kind,data,len(data),name.encode())==0
    r=jl.nvJitLinkComplete(h); assert r==0,r
    n=ctypes.c_size_t(); jl.nvJitLinkGetLinkedCubinSize(h,ctypes.byref(n)); b=ctypes.create_string_buffer(n.value); jl.nvJitLinkGetLinkedCubin(h,b)
    dt=time.perf_counter()-t; jl.nvJitLinkDestroy(ctypes.byref(h)); return dt
kir=open('/tmp/coop_catalog_bench/k.ltoir','rb').read()
units=['block_load_f32_t256_i4_striped','block_scan_sum_f32_t256_i4_raking','block_store_f32_t256_i4_striped']
cfg={'full units':[open('/tmp/gpucat/%s.fatbin'%u,'rb').read() for u in units],
     'exact3':[open('/tmp/coop_catalog_bench/exact3/%s.fatbin'%u,'rb').read() for u in units],
     'exact1':[open('/tmp/coop_catalog_bench/exact1/single.fatbin','rb').read()]}
base=['-arch=sm_90','-lto','-optimize-unused-variables']
link([(LTOIR,kir,'k')]+[(FATBIN,m,'m%d'%i) for i,m in enumerate(cfg['exact1'])],base)
res={k:[] for k in cfg}
for r in range(31):
    ks=list(cfg); random.shuffle(ks)
    for k in ks: res[k].append(link([(LTOIR,kir,'k')]+[(FATBIN,m,'m%d'%i) for i,m in enumerate(cfg[k])],base)*1000)
for k,v in res.items(): print('plain nvJitLink %-12s median %.2f ms'%(k,statistics.median(v)))
