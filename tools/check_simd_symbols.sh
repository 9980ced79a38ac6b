#!/usr/bin/env bash
# Fails if an object built with SIMD flags (*_avx2.cc, *_avx512.cc) defines a weak symbol that
# another file may define too: the out-of-line member of a library template (std::vector's
# growth, say), or an inline function from a shared header. The linker keeps one copy of each
# for the whole program, and if it keeps the SIMD one, a baseline caller runs AVX-512 code on
# any CPU. Templates of a file's own anonymous-namespace types are unique to it and allowed.
# Usage: check_simd_symbols.sh OBJECT... (ctest passes the kernel library's objects)
set -euo pipefail
status=0
for object in "$@"; do
  case "$object" in *_avx2.cc.o|*_avx512.cc.o) ;; *) continue ;; esac
  shared=$(nm -C "$object" | awk '$2 == "W" || $2 == "V"' | grep -v "(anonymous namespace)" |
           grep -v "DW.ref.__gxx_personality_v0" || true)
  if [ -n "$shared" ]; then
    echo "$(basename "$object") defines weak symbols another file may share:"
    echo "$shared" | sed 's/^/  /'
    status=1
  fi
done
exit $status
