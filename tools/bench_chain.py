#!/usr/bin/python3
"""Graph-size benchmark: a chain of N Relu nodes, as ONNX and as qrt JSON, through `qrt run`
(load, validate, order, passes, plan and one run), timed as a whole process with its peak
RSS. A benchmark, not a test: it prints a table and asserts nothing.

  /usr/bin/python3 tools/bench_chain.py [--qrt build/qrt] [--sizes 10000,100000,1000000]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def value(i, n):
    return "x" if i == 0 else ("y" if i == n else f"t{i}")


def write_onnx(path, n):
    nodes = [helper.make_node("Relu", [value(i, n)], [value(i + 1, n)], name=f"r{i}") for i in range(n)]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def write_json(path, n):
    doc = {"format": "qrt.graph", "version": 1, "opsets": {"": 13},
           "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 4]}], "outputs": [{"name": "y"}],
           "nodes": [{"name": f"r{i}", "op": "Relu", "inputs": [value(i, n)], "outputs": [value(i + 1, n)]}
                     for i in range(n)]}
    with open(path, "w") as f:
        json.dump(doc, f)


def timed(cmd):
    """Wall seconds and the child's peak RSS in MiB (wait4's rusage)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode().strip()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {err}")
    return wall, usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qrt", default=os.path.join(ROOT, "build", "qrt"))
    ap.add_argument("--sizes", default="10000,100000,1000000")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="qrt-chain-")
    x = os.path.join(work, "x.npy")
    np.save(x, np.ones((1, 4), np.float32))
    print(f"{'nodes':>8s} {'format':6s} {'passes':8s} {'seconds':>8s} {'peak MiB':>9s}")
    for n in (int(s) for s in args.sizes.split(",")):
        for fmt, writer in (("onnx", write_onnx), ("json", write_json)):
            path = os.path.join(work, f"chain_{n}.{fmt}")
            writer(path, n)
            for passes in ("none", "default"):
                wall, rss = timed([args.qrt, "run", path, "--input", f"x={x}", "--passes", passes])
                print(f"{n:8d} {fmt:6s} {passes:8s} {wall:8.2f} {rss:9.0f}", flush=True)
            os.remove(path)
    os.remove(x)
    os.rmdir(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
