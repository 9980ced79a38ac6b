#!/usr/bin/env bash
# Build qrt with AddressSanitizer + UndefinedBehaviorSanitizer (the "asan" preset in
# CMakePresets.json: QRT_SANITIZE=ON, RelWithDebInfo, no benchmarks) in build-asan and
# run the whole test suite there. Any sanitizer report fails the run: UBSan does not
# recover (-fno-sanitize-recover=undefined), ASan aborts on the first error and
# LeakSanitizer checks every test process at exit. CI runs this after the tests.
#   bash tools/sanitize.sh            # configure if needed, build, run the suite
#   JOBS=1 bash tools/sanitize.sh     # fewer parallel jobs (default 2)
#
# Each GoogleTest binary runs whole, in JOBS shards at once (GTEST_TOTAL_SHARDS), not a process
# per test as ctest runs it: an instrumented qrt_tests process takes about 0.9 s to start and
# exit, which over 1,900 tests was most of the suite's time (docs/design.md). The suite's other
# tests (the CLI in Chromium, the registry and format checks) run through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
start=$(date +%s)

[[ -f build-asan/build.ninja ]] || cmake --preset asan >/dev/null
cmake --build build-asan -j"$JOBS"
built=$(date +%s)

# As the asan test preset sets them (CMakePresets.json).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# LeakSanitizer stops the process with ptrace; some containers forbid that. Probe once: where
# it cannot run, the suite still runs under ASan + UBSan, without leak checks, and says so.
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf 'int main() { return 0; }\n' >"$probe_dir/p.cc"
if ! { c++ -fsanitize=address "$probe_dir/p.cc" -o "$probe_dir/p" 2>/dev/null &&
       "$probe_dir/p" >/dev/null 2>&1; }; then
  echo "sanitize.sh: LeakSanitizer cannot run here (ptrace refused?); running without leak checks" >&2
  export ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}
fi

# One binary in JOBS shards, each logged to its own file (shown whole if it fails).
run_sharded() {
  local binary=$1 pids=() failed=0
  for ((i = 0; i < JOBS; ++i)); do
    (cd build-asan && GTEST_TOTAL_SHARDS=$JOBS GTEST_SHARD_INDEX=$i "./$binary" --gtest_brief=1 \
       >"$probe_dir/$binary.$i.log" 2>&1) &
    pids+=($!)
  done
  for ((i = 0; i < JOBS; ++i)); do
    if ! wait "${pids[$i]}"; then
      failed=1
      echo "sanitize.sh: $binary shard $i of $JOBS failed:" >&2
      cat "$probe_dir/$binary.$i.log" >&2
    else
      echo "$binary shard $i of $JOBS: $(grep -E '^\[  (PASSED|SKIPPED) ' "$probe_dir/$binary.$i.log" | tr -s ' ' | tr '\n' ' ')"
    fi
  done
  return "$failed"
}

status=0
for binary in qrt_kernel_tests qrt_tests; do
  run_sharded "$binary" || status=1
done
ctest --test-dir build-asan --output-on-failure -j"$JOBS" -R '^(Build|Tools|Packaging|Python)\.' || status=1
[[ $status == 0 ]] || { echo "sanitize.sh: FAILED" >&2; exit 1; }
echo "sanitize.sh: ASan+UBSan suite passed in $(( $(date +%s) - start )) s (build $(( built - start )) s)"
