# Sourced by tests/faults/run.sh and tools.sh (with $build and $cooplink set): a scratch folder $work (removed at
# exit), bad(), a catalog of the fixture bundle, k.cu (calls a symbol of it) and g.cu (calls one it lacks:
# generated on demand), link(), and the reference cubins ref_k.cubin and ref_g.cubin, linked without faults.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# (a process killed mid-generation leaves its generator's work folder: under $work, not in /tmp)
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cat_dir=$work/catalog
mkdir -p "$cat_dir"
cp "$build"/tests/fixture_a.* "$cat_dir"/
cat > "$work/k.cu" <<'EOF'
extern "C" __device__ void coop_block_reduce_sum_f32_t128_i4_raking(const float *, float *, void *);
extern "C" __global__ void __launch_bounds__(128) k(const float *in, float *out) {
  __shared__ __align__(16) unsigned char temp[4096];
  float a[4], s;
  for (int i = 0; i < 4; ++i) a[i] = in[threadIdx.x * 4 + i];
  coop_block_reduce_sum_f32_t128_i4_raking(a, &s, temp);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
EOF
# a symbol the catalog lacks: generated on demand
cat > "$work/g.cu" <<'EOF'
extern "C" __device__ void coop_block_load_f32_t32_i1_direct(const float *, float *, void *);
extern "C" __global__ void __launch_bounds__(32) g(const float *in, float *out) {
  float a[1];
  coop_block_load_f32_t32_i1_direct(in, a, 0);
  out[threadIdx.x] = a[0] * 2.0f;
}
EOF
link() { # link KERNEL CACHE OUT [more options]: the cooplink command, its status
  local k=$1 cache=$2 out=$3
  shift 3
  "$cooplink" link --arch sm_90 --catalog "$cat_dir" --cache-dir "$cache" "$@" "$work/$k.cu" -o "$out"
}

mkdir -p "$work/c0"
link k "$work/c0" "$work/ref_k.cubin" --no-cache > /dev/null 2>&1 || bad "reference link of k.cu"
link g "$work/c0" "$work/ref_g.cubin" > /dev/null 2>&1 || bad "reference link of g.cu (generating)"
[ $fail = 0 ] || exit 1
