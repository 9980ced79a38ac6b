#!/usr/bin/env bash
# Build qrt with AddressSanitizer + UndefinedBehaviorSanitizer (the "asan" preset in
# CMakePresets.json: QRT_SANITIZE=ON, RelWithDebInfo, no benchmarks) in build-asan and
# run the whole test suite there. Any sanitizer report fails the run: UBSan does not
# recover (-fno-sanitize-recover=undefined), ASan aborts on the first error and
# LeakSanitizer checks every test process at exit. CI runs this after the tests.
#   bash tools/sanitize.sh            # configure if needed, build, ctest
#   JOBS=1 bash tools/sanitize.sh     # fewer parallel jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
start=$(date +%s)

[[ -f build-asan/build.ninja ]] || cmake --preset asan >/dev/null
cmake --build build-asan -j"$JOBS"

# LeakSanitizer stops the process with ptrace; some containers forbid that. Probe once: where
# it cannot run, the suite still runs under ASan + UBSan, without leak checks, and says so.
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf 'int main() { return 0; }\n' >"$probe_dir/p.cc"
if c++ -fsanitize=address "$probe_dir/p.cc" -o "$probe_dir/p" 2>/dev/null &&
   ASAN_OPTIONS=detect_leaks=1 "$probe_dir/p" >/dev/null 2>&1; then
  # The test preset sets ASAN_OPTIONS and UBSAN_OPTIONS; --output-on-failure shows the report.
  ctest --preset asan -j"$JOBS"
else
  echo "sanitize.sh: LeakSanitizer cannot run here (ptrace refused?); running without leak checks" >&2
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:check_initialization_order=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS"
fi
echo "sanitize.sh: ASan+UBSan suite passed in $(( $(date +%s) - start )) s"
