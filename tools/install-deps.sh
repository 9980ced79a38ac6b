#!/usr/bin/env bash
# Installs qrt's build and test dependencies from Debian 12's packages.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# ocl-icd-opencl-dev: oneDNN's CMake config requires OpenCL even for CPU use.
$SUDO apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ make pkg-config clang-format \
  libdnnl-dev ocl-icd-opencl-dev \
  libonnx-dev libprotobuf-dev protobuf-compiler \
  nlohmann-json3-dev libgtest-dev libbenchmark-dev libcli11-dev \
  libonnx-testdata python3-onnx python3-numpy \
  pybind11-dev python3-dev python3-pytest chromium >/dev/null
echo "qrt dependencies installed"
