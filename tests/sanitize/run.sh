#!/usr/bin/env bash
# The CPU tests under sanitizers, in three parts (each timed; any finding fails the run):
#   asan      every Criterion group on an ASan + UBSan build (build-asan): leaks, overflows, use after free, UB
#   valgrind  memcheck over the catalog, linker and cache groups, the cases that fit (build-valgrind)
#   python    a few of tests/python's CPU tests, libcooplink through ctypes: the ASan build's library, the ASan
#             runtime preloaded into Python
#
#   bash tests/sanitize/run.sh [asan] [valgrind] [python]      (none named: all three)
#
# clang for the ASan build: its one runtime writes ASan's, LeakSanitizer's and UBSan's reports to the files
# log_path names (gcc's UBSan writes to stderr whatever log_path says), and a report is read there even when
# the process that made it was a command a test expected to fail; and that runtime, as a shared library, is what
# Python preloads. clang 14 lacks _Float16, which the GPU suite's host code uses: only what the tests need is built.
# -fno-omit-frame-pointer: whole allocation stacks in leak reports. The valgrind build is gcc's, as CI's.
set -euo pipefail
cd "$(dirname "$0")/../.."
san=$PWD/tests/sanitize
parts=${*:-asan valgrind python}
groups="spec bundle link tempsizes catalog linker cache units"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

build() { # compiler, dir, meson targets (a list), meson options...
  local cc=$1 dir=$2 targets=$3
  shift 3
  local opts=(--buildtype=debugoptimized -Dc_args=-fno-omit-frame-pointer "$@")
  if grep -qs "^C compiler for the host machine: $cc " "$dir/meson-logs/meson-log.txt"; then
    meson setup --reconfigure "$dir" "${opts[@]}" > /dev/null
  else
    rm -rf "$dir"
    CC=$cc meson setup "$dir" "${opts[@]}" > /dev/null
  fi
  # shellcheck disable=SC2086
  meson compile -C "$dir" -j 1 $targets > "$dir/sanitize-build.log" || { tail -50 "$dir/sanitize-build.log"; return 1; }
}
tests_of() { printf 'test_%s ' "$@"; echo coopgen cooplink:executable fixture_a fixture_b; }
build_asan() {
  build clang build-asan "$(tests_of $groups) cooplink:shared_library catalog" \
    -Db_sanitize=address,undefined -Db_lundef=false -Dcatalog=ci
}

# Runs a command with every sanitizer report written to a file of its own, and fails when there is one: a test
# that expects a command (cooplink, coopgen) to fail would take a sanitizer's abort in it for that failure.
with_reports() {
  local logs rc=0
  logs=$(mktemp -d)
  ASAN_OPTIONS=$ASAN_OPTIONS:log_path=$logs/asan UBSAN_OPTIONS=$UBSAN_OPTIONS:log_path=$logs/ubsan "$@" || rc=$?
  for f in "$logs"/*; do
    [ -e "$f" ] || continue
    echo "== sanitizer report ${f##*/}" >&2
    cat "$f" >&2
    rc=1
  done
  rm -rf "$logs"
  return "$rc"
}

asan() {
  build_asan
  # shellcheck disable=SC2086
  with_reports meson test -C build-asan --no-rebuild --num-processes 1 --print-errorlogs $groups
}

# Under valgrind a test costs ~5 s to start (nvJitLink's initialisers) and runs ~30 times slower. Left out: the
# linker cases that generate CUB instances through NVRTC (on_demand_generation_and_reuse, missing_custom_operator_is_named,
# user_types_generated_on_demand_and_checked, overlapping_generated_bundles_tolerated: 40-170 s each under valgrind;
# the ASan part runs them), ptx_cubin_fatbin_and_archive_inputs (inputs of every kind, 30 s), command_line (its work
# is in the cooplink command, which a shell starts: valgrind does not follow it) and two cache cases like those kept
# (corrupt_entry_dropped_and_rebuilt, size_cap_evicts_least_recently_used).
memcheck_cases='@(catalog/*|cache/@(miss_then_hit|truncated_entry_dropped_and_rebuilt|threads_and_processes)|linker/@(arch_coverage|auto_resolution_adds_only_needed_bundles|bad_option|generated_folder_read_only_when_needed|input_errors_and_state|missing_symbols_listed_when_generation_is_off|no_arch_without_gpu|not_a_cooplink_symbol|nvrtc_error_is_reported|tampered_payload_rejected|unwritable_cache))'
valgrind_part() {
  build gcc build-valgrind "$(tests_of catalog linker cache)" -Dcatalog=none
  meson test -C build-valgrind --no-rebuild --num-processes 1 --print-errorlogs --wrap "$san/memcheck.sh" \
    "--test-args=--filter=$memcheck_cases" catalog linker cache
}

# Leaks are not looked for here (Python frees little at exit; the groups above check libcooplink's); overflows,
# use after free and UB in libcooplink are, in this process and in the Python processes the tests start.
python_part() {
  [ -f build-asan/libcooplink.so ] || build_asan
  local venv=${COOP_SAN_VENV:-$PWD/build-asan-venv}
  if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'numba-cuda[cu13]>=0.30.4' 'pytest>=7' 'cuda-toolkit[nvvm]==13.0.*' 'nvidia-nvjitlink==13.0.*'
  fi
  local cache root=$PWD
  cache=$(mktemp -d)
  (cd tests/python && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 with_reports env \
    LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" ASAN_SYMBOLIZER_PATH="$san/llvm-symbolizer" COOPLINK_LIBRARY="$root/build-asan/libcooplink.so" \
    COOPLINK_CATALOG="$root/build-asan/catalog" COOPLINK_CACHE="$cache" PYTHONPATH="$root/python" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --capture=sys \
    test_package.py::test_python_m_cooplink test_package.py::test_on_demand_generation_once \
    test_numba_cpu.py::test_factory_load_store test_numba_cpu.py::test_factory_scans \
    test_numba_cpu.py::test_record_user_type 'test_segmented_cpu.py::test_kernels_link_inlined[float32-sum-sr_block]')
  rm -rf "$cache"
}

for part in $parts; do
  t0=$SECONDS
  case $part in
    asan) asan ;;
    valgrind) valgrind_part ;;
    python) python_part ;;
    *) echo "unknown part: $part (asan, valgrind, python)" >&2; exit 2 ;;
  esac
  echo "sanitize: $part passed in $((SECONDS - t0)) s"
done
