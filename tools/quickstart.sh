#!/usr/bin/env bash
# Quick start, step 1: install dependencies, build qrt, and run a bundled model end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target qrt_cli
echo "--- qrt inspect models/qdq_mul_add/model.onnx"
build/qrt inspect models/qdq_mul_add/model.onnx
echo "--- qrt run models/qdq_mul_add/model.onnx"
build/qrt run models/qdq_mul_add/model.onnx --inputs models/qdq_mul_add/test_data_set_0
