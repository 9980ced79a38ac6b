#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds tools/example against
# that installed package only (find_package(qrt) and pkg-config) and runs it.
#   example_against_installed_package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# Nothing of the source tree may leak in: only the prefix is given.
cmake -S "$src/tools/example" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
model=$src/models/qdq_mul_add
for exe in qrt_top_k qrt_top_k_static; do
  out=$("$work/build/$exe" "$model/model.onnx" "$model/test_data_set_0/input_0.pb" "$model/test_data_set_0/output_0.pb")
  echo "$out"
  grep -q "output matches" <<<"$out"
done
out=$("$work/build/qrt_top_k" "$model/model.onnx")  # synthetic input
grep -q "top 5" <<<"$out"
out=$("$work/build/qrt_hello_c" "$model/model.onnx")
grep -q "input x: uint8, rank 4" <<<"$out"
# The statically linked program must not need libqrt.so.
if env -u LD_PRELOAD ldd "$work/build/qrt_top_k_static" | grep "libqrt\.so"; then echo "static example links libqrt.so"; exit 1; fi
# pkg-config, as a Makefile user would.
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig
cc -std=c99 -o "$work/hello_pc" "$src/tools/example/hello.c" $(pkg-config --cflags --libs qrt) \
  -Wl,-rpath,"$(pkg-config --variable=libdir qrt)"
out=$("$work/hello_pc" "$model/model.onnx")
grep -q "nodes after passes" <<<"$out"
# The Python package, when the build made one: imported from the prefix alone, away from the tree.
for site in "$work"/prefix/lib/python3*/site-packages; do
  [ -d "$site/qrt" ] || continue
  out=$(cd "$work" && PYTHONPATH=$site /usr/bin/python3 -c \
    "import qrt; m = qrt.compile('$model/model.onnx'); print(qrt.__file__, dict(m.passes)['fuse-dq-mul-q'])")
  echo "$out"
  grep -q "^$site/qrt/__init__.py 1$" <<<"$out"
done
echo "installed package: OK"
