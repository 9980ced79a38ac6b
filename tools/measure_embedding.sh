#!/usr/bin/env bash
# Figures for embedding qrt: library and stripped example sizes, with and without the
# ONNX loader, and the example's time from process start to first result and peak RSS
# on the bundled model (median of 20 runs).
#   tools/measure_embedding.sh [BUILD_DIR] [BUILD_DIR_WITHOUT_ONNX]
# Both build dirs must already be built (the second with -DQRT_WITH_ONNX=OFF).
set -euo pipefail
cd "$(dirname "$0")/.."
full=${1:-build} min=${2:-build-min}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=models/qdq_mul_add
# The JSON-only build reads JSON models and .npy inputs.
"$full/qrt" convert "$model/model.onnx" "$work/model.json"
/usr/bin/python3 -c "
import numpy, onnx.numpy_helper as h, onnx, sys
t = onnx.TensorProto(); t.ParseFromString(open('$model/test_data_set_0/input_0.pb','rb').read())
numpy.save('$work/x.npy', h.to_array(t))"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf "| build | libqrt.a | libqrt.so | example, static, stripped | example, shared, stripped | process start to first result, median (ms) | peak RSS (KiB) |\n|---|---|---|---|---|---|---|\n"
for variant in full min; do
  dir=${!variant}
  cmake --install "$dir" --prefix "$work/$variant" >/dev/null
  cmake -S tools/example -B "$work/ex-$variant" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/$variant" >/dev/null
  cmake --build "$work/ex-$variant" >/dev/null
  for exe in qrt_top_k qrt_top_k_static; do strip -o "$work/$variant-$exe" "$work/ex-$variant/$exe"; done
  lib=$(find "$work/$variant" -name libqrt.a); so=$(find "$work/$variant" -name 'libqrt.so.*.*.*' | head -1)
  m=$work/model.json
  rm -f "$work/times"
  for i in $(seq 20); do
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$work/t" "$work/ex-$variant/qrt_top_k_static" "$m" "$work/x.npy" >/dev/null
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000 )) $(cat "$work/t")" >> "$work/times"
  done
  ms=$(awk '{print $1/1000}' "$work/times" | median)
  rss=$(awk '{print $2}' "$work/times" | median)
  printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$([ $variant = full ] && echo 'ONNX + JSON' || echo 'JSON only')" \
    "$(du -k "$lib" | cut -f1) KiB" "$(du -k "$so" | cut -f1) KiB" \
    "$(du -k "$work/$variant-qrt_top_k_static" | cut -f1) KiB" "$(du -k "$work/$variant-qrt_top_k" | cut -f1) KiB" "$ms" "$rss"
done
