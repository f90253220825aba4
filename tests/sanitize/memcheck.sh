#!/usr/bin/env bash
# `meson test --wrap` of tests/sanitize/run.sh: one Criterion test program under valgrind memcheck. Criterion runs each
# test in a worker it starts with exec (--trace-children follows it) and reads a worker's exit status only while the
# test runs: an error valgrind reports later, a leak at exit above all, would not fail the test. So every process logs
# to its own file, and any worker's log that is not empty fails the run here. The runner's own log is not read: it
# runs only Criterion's code, which leaks a BoxFort timeout request now and then with --jobs 2.
set -u
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d)
valgrind -q --trace-children=yes --trace-children-skip='/bin/*,/usr/bin/*' --leak-check=full \
  --show-leak-kinds=definite --errors-for-leak-kinds=definite --num-callers=30 --suppressions="$here/valgrind.supp" \
  --log-file="$logs/%p.log" "$@" &
runner=$!
wait "$runner"
rc=$?
for f in "$logs"/*.log; do
  if [ "$f" != "$logs/$runner.log" ] && [ -s "$f" ]; then
    cat "$f" >&2
    rc=99
  fi
done
rm -rf "$logs"
exit "$rc"
