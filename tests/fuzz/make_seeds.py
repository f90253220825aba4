#!/usr/bin/env python3
"""Makes the seed corpora (tests/fuzz/corpus/<target>/) from real inputs: the repository's specs, specs
compiled by BUILD/coopgen, a small catalog it writes (payloads cut to 64 bytes, every size and sha256
made right again), a cache entry BUILD/cooplink writes for a small link, symbols and command lines.
Needs NVRTC, nvJitLink and PyYAML (no GPU). Usage: python3 tests/fuzz/make_seeds.py [BUILD] (default build)."""
import hashlib, json, os, re, shutil, subprocess, sys, tempfile

import yaml

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, 'build'))
CORPUS = os.path.join(SRC, 'tests', 'fuzz', 'corpus')
COOPGEN, COOPLINK = os.path.join(BUILD, 'coopgen'), os.path.join(BUILD, 'cooplink')

# Specs beyond the repository's, every one accepted by coopgen (checked below): user types, warp
# families, every block family, the top-level keys.
SPECS = {
    'utypes': {'name': 'utypes', 'arch': ['sm_90'], 'types': [{'name': 'mat2', 'size': 16, 'align': 4}], 'generate': [
        {'family': 'block_reduce', 'type': 'mat2', 'op': 'custom:mat2_add', 'threads': 64, 'items': 2, 'algorithm': 'raking'},
        {'family': 'block_load', 'type': 'mat2', 'threads': '32x2', 'items': 2, 'variant': 'guarded'}]},
    'warps': {'name': 'warps', 'arch': 'sm_80', 'ir': 'optimized', 'generate': [
        {'family': 'warp_reduce', 'type': ['i32', 'u64'], 'op': ['sum', 'max'], 'warp': [32, 12]},
        {'family': 'warp_scan', 'type': 'bf16', 'op': 'min', 'warp': 8, 'variant': 'inclusive'},
        {'family': 'warp_load', 'type': 'f16', 'warp': 32, 'items': 4, 'algorithm': 'vectorize'},
        {'family': 'warp_exchange', 'type': 'i8', 'warp': 16, 'items': 16, 'algorithm': 'shuffle'},
        {'family': 'warp_merge_sort', 'type': 'f32', 'values': 'i32', 'op': 'less', 'warp': 16, 'items': 2}]},
    'blocks': {'name': 'block_more', 'units': 'symbol', 'arch': ['sm_80', 'sm_120'], 'generate': [
        {'family': 'block_histogram', 'type': 'u8', 'threads': 128, 'items': 4, 'bins': 256, 'algorithm': 'atomic'},
        {'family': 'block_run_length_decode', 'type': 'f32', 'threads': '32x2', 'items': 2, 'decoded': 4},
        {'family': 'block_radix_sort', 'type': 'u32', 'values': 'f32', 'threads': 128, 'items': 4, 'algorithm': 'r5',
         'variant': ['pairs_asc', 'pairs_desc_striped']},
        {'family': 'block_radix_rank', 'type': 'i16', 'threads': 64, 'items': 2, 'algorithm': 'r3', 'variant': 'desc'},
        {'family': 'block_merge_sort', 'type': 'f64', 'op': 'greater', 'threads': 64, 'items': 3, 'variant': 'keys_guarded'},
        {'family': 'block_exchange', 'type': 'i64', 'threads': 96, 'items': 2, 'algorithm': 'smem_ts',
         'variant': ['striped_to_blocked', 'scatter_to_blocked']},
        {'family': 'block_discontinuity', 'type': 'i32', 'op': ['ne', 'custom:my_flag'], 'threads': 32, 'items': 4,
         'variant': 'heads_tails_pred_succ'},
        {'family': 'block_adjacent_difference', 'type': 'f32', 'op': 'sub', 'threads': 32, 'items': 4, 'variant': 'right_partial'},
        {'family': 'block_shuffle', 'type': 'u16', 'threads': '16x2x2', 'items': 2, 'variant': ['rotate', 'up_suffix']},
        {'family': 'block_scan', 'type': 'f64', 'op': 'prod', 'threads': 65, 'items': 3, 'algorithm': 'raking_memoize',
         'variant': 'exclusive_prefix'},
        {'family': 'block_store', 'type': 'u64', 'threads': 64, 'items': 2, 'algorithm': 'warp_transpose'}]},
}
CATALOG_SPEC = {'name': 'seed', 'arch': 'sm_90', 'generate': [
    {'family': 'block_reduce', 'type': 'f32', 'op': 'sum', 'threads': 32, 'items': 1, 'algorithm': 'raking'},
    {'family': 'block_load', 'type': 'f32', 'threads': 32, 'items': 1, 'algorithm': 'direct'}]}
KERNEL = ('extern "C" __device__ void coop_block_reduce_sum_f32_t32_i1_raking(const float *, float *, void *);\n'
          'extern "C" __global__ void k(const float *in, float *out) {\n'
          '  __shared__ __align__(16) unsigned char temp[1024];\n  float s, a = in[threadIdx.x];\n'
          '  coop_block_reduce_sum_f32_t32_i1_raking(&a, &s, temp);\n  if (threadIdx.x == 0) *out = s;\n}\n')
COOPGEN_ARGS = [
    '--family block_reduce --type f32,f64 --op sum,max --threads 128,32x4 --items 4 --algorithm raking,warp_reductions --arch sm_80,sm_90 --name demo',
    '--family warp_scan --type i32 --op sum --warp 32,16 --variant inclusive --ir optimized',
    '--user-type mat2:16:4 --family block_reduce --type mat2 --op custom:mat2_add --threads 64 --items 2',
    '--family block_histogram --type u8 --threads 128 --items 4 --bins 256 --algorithm atomic -o out',
    '--family block_run_length_decode --type f32 --threads 32 --items 2 --decoded 4 --print-source',
    '--family warp_merge_sort --type f32 --values i32 --op less --warp 16 --items 2',
    '--family block_load --type f16 --threads 256 --items 4 --algorithm vectorize --variant plain,guarded --output=o',
    '--spec catalog/ci.json --catalog -o build/catalog',
    '--symbols syms.txt --arch sm_90',
    '--help', '--version', '-o', '--describe',
]
COOPLINK_ARGS = [
    '--arch sm_90 --catalog cat k.cu -o k.cubin --ptx k.ptx --verbose',
    '--no-cache --no-generate -I inc -Iinc2 --lineinfo -Xnvrtc -G -Xnvjitlink -O3 a.ltoir b.a -o out.cubin',
    '--arch sm_80 --cache-dir c --user-type mat2:16:4 --user-type v3:12:4 k.cu -o k.cubin',
    'list build/catalog --symbols', 'verify --catalog build/catalog', '-v x.json -o y',
]
DICTS = {
    'spec': ['"name"', '"arch"', '"units"', '"ir"', '"types"', '"size"', '"align"', '"generate"', '"family"', '"type"',
             '"op"', '"threads"', '"items"', '"algorithm"', '"variant"', '"warp"', '"values"', '"bins"', '"decoded"',
             '"instance"', '"symbol"', '"plain"', '"optimized"', '"sm_80"', '"sm_90"', '"custom:"', '"32x4x2"', '"1024"',
             '"block_"', '"warp_"', '"_to_"', '"guarded"', '"partial"', '"pairs"', '"keys"', '"_prefix"', '"r4"', '"smem_ts"',
             '"null"', '"[]"', '"{}"', '"-1"', '"&a"', '"*a"', '"!!str"', '"---"'],
    'symbol': ['"coop_block_"', '"coop_warp_"', '"_t256"', '"_w32"', '"_i4"', '"_b256"', '"_d4"', '"_f32"', '"_mat2"',
               '"custom_"', '"reduce_"', '"scan_"', '"_prefix"', '"_partial"', '"_guarded"', '"load"', '"store"',
               '"merge_sort_pairs_"', '"radix_sort_"', '"rank_"', '"exchange_"', '"discontinuity_"', '"shuffle_"',
               '"adjacent_difference_"', '"histogram_"', '"run_length_decode"', '"_raking"', '"_warp_reductions"', '"_r4"'],
    'bundle': ['"format"', '"kind"', '"cooplink-catalog"', '"cooplink_version"', '"cuda_version"', '"13.0"', '"0.1.0"',
               '"archs"', '"header"', '"file"', '"sha256"', '"units"', '"instance"', '"symbol"', '"bundles"',
               '"symbols"', '"index_sha256"', '"manifest_sha256"', '"payloads"', '"bytes"', '"fatbin"', '"ltoir"',
               '"arch"', '"sm_90"', '"types"', '"size"', '"align"', '"name"', '"coop_"', '"=== "', '"null"', '"true"',
               '"[]"', '"{}"', '"-1"', '"1e300"', '"18446744073709551616"', '"\\"\\""',
               '"=== catalog.json\\x0a"', '"=== index.json\\x0a"'],
    'coopgen_args': ['"--spec\\x00"', '"--family\\x00"', '"--type\\x00"', '"--op\\x00"', '"--threads\\x00"', '"--items\\x00"',
                     '"--warp\\x00"', '"--ir\\x00"', '"--algorithm\\x00"', '"--variant\\x00"', '"--arch\\x00"', '"--name\\x00"',
                     '"--output\\x00"', '"--print-source\\x00"', '"--version\\x00"', '"--help\\x00"', '"--catalog\\x00"',
                     '"--symbols\\x00"', '"--user-type\\x00"', '"--values\\x00"', '"--bins\\x00"', '"--decoded\\x00"', '"--describe\\x00"',
                     '"-o\\x00"', '"block_reduce\\x00"', '"f32,f64\\x00"', '"mat2:16:4\\x00"', '"sm_80,sm_90\\x00"'],
    'cooplink_args': ['"--arch\\x00"', '"--catalog\\x00"', '"--no-cache\\x00"', '"--cache-dir\\x00"', '"--no-generate\\x00"',
                      '"-I\\x00"', '"--lineinfo\\x00"', '"--user-type\\x00"', '"-Xnvrtc\\x00"', '"-Xnvjitlink\\x00"',
                      '"--verbose\\x00"', '"-v\\x00"', '"-o\\x00"', '"--ptx\\x00"', '"--symbols\\x00"', '"list\\x00"',
                      '"verify\\x00"', '"sm_90\\x00"', '"mat2:16:4\\x00"'],
}
DICT_OF = {'spec_json': 'spec', 'spec_yaml': 'spec', 'symbol': 'symbol', 'manifest': 'bundle', 'catalog': 'bundle',
           'cache_entry': None, 'coopgen_args': 'coopgen_args', 'cooplink_args': 'cooplink_args'}


def sha(data):
    return hashlib.sha256(data).hexdigest()


def put(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def run(*cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def pack(files):
    """The multi-file input of the manifest and catalog targets (fuzz_util.h)."""
    return b'\n'.join(b'=== ' + n.encode() + b'\n' + d for n, d in files)


def shrink(cat):
    """Cuts every payload of the catalog folder cat to 64 bytes and makes each manifest's bytes and sha256,
    the index's manifest hashes and catalog.json's index hash right again."""
    files = {n: open(os.path.join(cat, n), 'rb').read() for n in os.listdir(cat)}
    index = files['index.json'].decode()
    for name in [n for n in files if n.endswith('.json') and n not in ('index.json', 'catalog.json')]:
        text = files[name].decode()
        for m in re.finditer(r'"file": "([^"]+)",\s*"bytes": (\d+),\s*"sha256": "([0-9a-f]{64})"', text):
            cut = files[m.group(1)][:64]
            files[m.group(1)] = cut
            text = text.replace(m.group(0), m.group(0).replace(f'"bytes": {m.group(2)}', f'"bytes": {len(cut)}')
                                .replace(m.group(3), sha(cut)))
        index = index.replace(sha(files[name]), sha(text.encode()))
        files[name] = text.encode()
    files['index.json'] = index.encode()
    if 'catalog.json' in files:
        files['catalog.json'] = files['catalog.json'].replace(sha(open(os.path.join(cat, 'index.json'), 'rb').read()).encode(),
                                                              sha(index.encode()).encode())
    return files


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    work = tempfile.mkdtemp(prefix='coopseeds.')
    try:
        specs = {os.path.basename(p)[:-5]: open(p).read() for p in
                 [os.path.join(SRC, 'catalog', 'ci.json'), os.path.join(SRC, 'tests', 'unit', 'fixture_a.json'),
                  os.path.join(SRC, 'tests', 'unit', 'fixture_b.json')]}
        specs.update({k: json.dumps(v, indent=1) for k, v in SPECS.items()})
        symbols = set()
        for name, text in specs.items():
            path = os.path.join(work, name + '.json')
            open(path, 'w').write(text)
            src = subprocess.run([COOPGEN, '--spec', path, '--print-source'], check=True, capture_output=True, text=True).stdout
            symbols |= set(re.findall(r'\b(coop_(?:block|warp)_[a-z0-9_]+)\(', src))
            put('spec_json', name + '.json', text)
            put('spec_yaml', name + '.yaml', yaml.safe_dump(json.loads(text), sort_keys=False, default_flow_style=None))
        groups = {}
        for s in sorted(symbols):  # at most three of each kind (coop_block_load, coop_warp_reduce, ...)
            groups.setdefault(s.split('_')[1] + '_' + s.split('_')[2], []).append(s)
        for g in groups.values():
            for s in g[::max(1, len(g) // 3)][:3]:
                put('symbol', s, s)
        # a catalog of two units, and the fixture bundle (format 1, LTO-IR per arch)
        cat = os.path.join(work, 'cat')
        open(os.path.join(work, 'cat.json'), 'w').write(json.dumps(CATALOG_SPEC))
        run(COOPGEN, '--spec', os.path.join(work, 'cat.json'), '--catalog', '-o', cat)
        files = shrink(cat)
        units = sorted(n[:-5] for n in files if n.endswith('.json') and n not in ('index.json', 'catalog.json'))
        unit_files = lambda u: [(u + '.json', files[u + '.json']), (u + '.fatbin', files[u + '.fatbin'])]
        put('catalog', 'lazy', pack([(n, files[n]) for n in ['catalog.json', 'index.json']] +
                                    unit_files(units[0]) + unit_files(units[1])))
        put('catalog', 'index', pack([(n, files[n]) for n in ['index.json', 'seed.h']] + unit_files(units[0]) + unit_files(units[1])))
        put('catalog', 'folder', pack(unit_files(units[1])))
        for u in units:
            put('manifest', u, pack(unit_files(u)))
        fixture = [(n, open(os.path.join(BUILD, 'tests', n), 'rb').read()[:64 if n.endswith('.ltoir') else None])
                   for n in ['fixture_b.json', 'fixture_b.sm_90.ltoir']]
        manifest = fixture[0][1].decode()
        m = re.search(r'"bytes": (\d+),\s*"sha256": "([0-9a-f]{64})"', manifest)
        manifest = manifest.replace(m.group(0), m.group(0).replace(m.group(1), '64').replace(m.group(2), sha(fixture[1][1])))
        put('manifest', 'fixture_b', pack([('fixture_b.json', manifest.encode()), fixture[1]]))
        put('catalog', 'fixture_b', pack([('fixture_b.json', manifest.encode()), fixture[1]]))
        # a cache entry of a real link (payloads whole), and the same with a tiny cubin, its hash made right
        full = os.path.join(work, 'full')
        run(COOPGEN, '--spec', os.path.join(work, 'cat.json'), '--catalog', '-o', full)
        open(os.path.join(work, 'k.cu'), 'w').write(KERNEL)
        run(COOPLINK, 'link', '--arch', 'sm_90', '--catalog', full, '--cache-dir', os.path.join(work, 'cache'),
            os.path.join(work, 'k.cu'), '-o', os.path.join(work, 'k.cubin'))
        links = os.path.join(work, 'cache', 'links')
        entry = open(os.path.join(links, os.listdir(links)[0]), 'rb').read()
        lens = [int.from_bytes(entry[16 + 8 * i:24 + 8 * i], 'little') for i in range(4)]
        secs, p = [], 48
        for n in lens:
            secs.append(entry[p:p + n])
            p += n
        secs[0] = secs[0][:64]
        small = entry[:16] + b''.join(len(s).to_bytes(8, 'little') for s in secs) + b''.join(secs)
        small += sha(small).encode()
        put('cache_entry', 'link', b'\0' + entry)
        put('cache_entry', 'small', b'\0' + small)
        put('cache_entry', 'small_fixhash', b'\1' + small[:-64] + b'0' * 64)
        for i, a in enumerate(COOPGEN_ARGS):
            put('coopgen_args', f'args{i}', ''.join(x + '\0' for x in a.split()))
        for i, a in enumerate(COOPLINK_ARGS):
            put('cooplink_args', f'args{i}', ''.join(x + '\0' for x in a.split()))
        for target, d in DICT_OF.items():
            if d:
                with open(os.path.join(SRC, 'tests', 'fuzz', target + '.dict'), 'w') as f:
                    f.write('# made by make_seeds.py\n' + ''.join(t + '\n' for t in DICTS[d]))
    finally:
        shutil.rmtree(work)


if __name__ == '__main__':
    main()
