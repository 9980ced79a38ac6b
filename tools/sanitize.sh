#!/usr/bin/env bash
# Build qrt with AddressSanitizer + UndefinedBehaviorSanitizer (QRT_SANITIZE) in
# build-asan and run the whole test suite there. Any sanitizer report fails the run:
# UBSan does not recover (-fno-sanitize-recover=undefined) and ASan aborts on error.
#   bash tools/sanitize.sh            # configure if needed, build, ctest
#   JOBS=1 bash tools/sanitize.sh     # fewer parallel jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
BUILD=${BUILD:-build-asan}
start=$(date +%s)

if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DQRT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DQRT_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$BUILD" -j"$JOBS"

# detect_leaks: the suite must not leak either. abort_on_error gives a core-style exit
# that ctest reports as a failure with the sanitizer's message in the test output.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$BUILD" --output-on-failure -j"$JOBS"
echo "sanitize.sh: ASan+UBSan suite passed in $(( $(date +%s) - start )) s"
