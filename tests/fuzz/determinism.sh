#!/usr/bin/env bash
# Determinism: coopgen run twice on the same requests, into two folders at different paths, must write the
# same files with the same bytes. A bundle (fixture_b: NVRTC; both runs from one working directory, as
# NVRTC's LTO-IR records it), and a catalog (fixture_a: two units of two archs, cicc and fatbinary in
# parallel, "byte-identical wherever built": each run from its own folder) once from the JSON spec with
# COOPGEN_JOBS=1 and once from the same spec as YAML with COOPGEN_JOBS=2.
#   bash tests/fuzz/determinism.sh COOPGEN
set -euo pipefail
coopgen=$(realpath "${1:?usage: determinism.sh COOPGEN}")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/coopdet.XXXXXX")
trap 'rm -rf "$work"' EXIT

gen() { # CWD OUT JOBS ARGS...
  local cwd=$work/$1 out=$work/$2 jobs=$3
  shift 3
  mkdir -p "$cwd" "$out"
  (cd "$cwd" && COOPGEN_JOBS=$jobs "$coopgen" "$@" -o "$out" > /dev/null)
}

same() { # WHAT A B
  local what=$1 a=$work/$2 b=$work/$3 bad=0
  if [ "$(cd "$a" && ls)" != "$(cd "$b" && ls)" ]; then
    echo "determinism $what: the two runs wrote different files:"
    diff <(cd "$a" && ls) <(cd "$b" && ls) || true
    return 1
  fi
  for f in "$a"/*; do
    cmp -s "$f" "$b/$(basename "$f")" || { echo "determinism $what: $(basename "$f") differs"; bad=1; }
  done
  (( bad == 0 )) && echo "determinism $what: $(ls "$a" | wc -l) files, the same bytes twice"
  return $bad
}

status=0
gen . bundle1 1 --spec "$src/tests/unit/fixture_b.json"
gen . again/bundle2 2 --spec "$src/tests/unit/fixture_b.json"
same bundle bundle1 again/bundle2 || status=1
gen catalog1 catalog1 1 --spec "$src/tests/unit/fixture_a.json" --catalog
gen again/elsewhere again/catalog2 2 --spec "$src/tests/fuzz/corpus/spec_yaml/fixture_a.yaml" --catalog
same catalog catalog1 again/catalog2 || status=1
exit $status
