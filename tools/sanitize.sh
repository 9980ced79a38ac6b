#!/usr/bin/env bash
# Build qrt with AddressSanitizer + UndefinedBehaviorSanitizer (the "asan" preset in
# CMakePresets.json: QRT_SANITIZE=ON, RelWithDebInfo, no benchmarks) in build-asan and
# run the whole test suite there. Any sanitizer report fails the run: UBSan does not
# recover (-fno-sanitize-recover=undefined), ASan aborts on the first error and
# LeakSanitizer checks every test process at exit.
#   bash tools/sanitize.sh            # configure if needed, build, ctest
#   JOBS=1 bash tools/sanitize.sh     # fewer parallel jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
start=$(date +%s)

[[ -f build-asan/build.ninja ]] || cmake --preset asan >/dev/null
cmake --build build-asan -j"$JOBS"
# The test preset sets ASAN_OPTIONS and UBSAN_OPTIONS; --output-on-failure shows the report.
ctest --preset asan -j"$JOBS"
echo "sanitize.sh: ASan+UBSan suite passed in $(( $(date +%s) - start )) s"
