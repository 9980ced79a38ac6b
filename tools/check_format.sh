#!/usr/bin/env bash
# Fails when a C or C++ source differs from what .clang-format (clang-format 14) makes of it.
#   bash tools/check_format.sh          # check (ctest runs this)
#   bash tools/check_format.sh --fix    # rewrite the files in place
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "check_format.sh: clang-format is not installed (tools/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^tools/fuzz/seeds/' || true)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i --style=file "${files[@]}"
  exit 0
fi
clang-format --dry-run -Werror --style=file "${files[@]}"
echo "check_format.sh: ${#files[@]} files formatted as .clang-format says"
