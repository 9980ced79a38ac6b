#!/usr/bin/env bash
# tools/hide_avx512.cc: under it an AVX-512 machine's auto tier is avx2 (qrt's CPUID reading
# and oneDNN's see no AVX-512), avx512 with only VNNI hidden, the model still runs, and without
# it the tier is avx512* again.
# Skips (77) on a CPU without AVX-512 or without CPUID faulting (/proc/cpuinfo cpuid_fault).
# Usage: hide_avx512_test.sh LIBRARY QRT_CLI MODEL
set -euo pipefail
lib=$1 cli=$2 model=$3
grep -qw avx512f /proc/cpuinfo || { echo "no AVX-512 to hide"; exit 77; }
grep -qw cpuid_fault /proc/cpuinfo || { echo "no CPUID faulting on this machine"; exit 77; }
tier() { "$@" inspect "$model" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["isa"])'; }
unset QRT_MAX_ISA LD_PRELOAD QRT_HIDE_AVX512  # the plain tier is the machine's own
plain=$(tier "$cli")
report=$(QRT_HIDE_AVX512_REPORT=1 LD_PRELOAD="$lib" "$cli" inspect "$model" 2>&1 >/dev/null | grep hide_avx512 || true)
hidden=$(LD_PRELOAD="$lib" tier "$cli")
echo "without: $plain; with: $hidden; $report"
[ "$report" = "hide_avx512: active" ] || { echo "FAIL: the library did not report itself active"; exit 1; }
case "$plain" in avx512*) ;; *) echo "FAIL: expected an avx512 tier without the library"; exit 1 ;; esac
[ "$hidden" = avx2 ] || { echo "FAIL: expected avx2 with AVX-512 hidden, got $hidden"; exit 1; }
# QRT_HIDE_AVX512=vnni: the avx512 tier (where the CPU has VNNI to hide).
if grep -qw avx512_vnni /proc/cpuinfo; then
  vnni=$(QRT_HIDE_AVX512=vnni LD_PRELOAD="$lib" tier "$cli")
  echo "VNNI hidden: $vnni"
  [ "$vnni" = avx512 ] || { echo "FAIL: expected avx512 with VNNI hidden, got $vnni"; exit 1; }
fi
# The model runs at that tier (random inputs).
bench=$(LD_PRELOAD="$lib" "$cli" bench "$model" --iters 3 --warmup 1)
echo "$bench"
case "$bench" in *"isa avx2") ;; *) echo "FAIL: bench did not run at avx2"; exit 1 ;; esac
