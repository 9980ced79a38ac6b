#!/usr/bin/python3
"""Runs qrt and ONNX Runtime on the same models in one sitting and prints one table.

For each model: `qrt bench` median (per --passes setting) and ORT's median through the peer
harness (../shared/peers/ort/ort_run.js, --opt all, same --threads), their ratio, the peak
RSS of each process, and start-up: qrt's load + compile against ORT's
InferenceSession.create (median of 5, in one Node process). Inputs come from the model's folder: inputs/<name>.npy (gen_models.py
layout), test_data_set_0/ or ort130_ref_0/ (ONNX test layout).

usage: tools/bench_vs_ort.py [--qrt build/qrt] [--iters N] [--passes none,default] [--hide-avx512] MODEL.onnx|DIR ...
  A DIR holding model folders (e.g. gen_models.py output) adds every DIR/*/model.onnx.
  ORT_PEER_DIR must point at the onnxruntime-node install (bash ../shared/peers/ort/setup.sh).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "peers", "ort", "ort_run.js"))


def inputs_dir(model):
    d = os.path.dirname(model)
    base = os.path.splitext(model)[0]
    for cand in (os.path.join(d, "inputs"), os.path.join(d, "test_data_set_0"),
                 os.path.join(base, "test_data_set_0"), os.path.join(base, "ort130_ref_0")):
        if os.path.isdir(cand):
            return cand
    return None


def peak_rss_of(cmd):
    """Peak RSS (KiB) of one child process, measured with wait4. Its stderr is read on a thread of
    its own: read after stdout, a child writing more than a pipe holds to stderr blocked forever."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_parts = []
    reader = threading.Thread(target=lambda: err_parts.append(p.stderr.read()))
    reader.start()
    out = p.stdout.read()
    reader.join()
    _, status, usage = os.wait4(p.pid, 0)
    return out, "".join(err_parts), usage.ru_maxrss, status


def parse_json(out):
    """The last JSON object on stdout that carries a median."""
    for line in reversed(out.strip().splitlines()):
        if line.strip().startswith("{"):
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "median_us" in j:
                return j
    return None


# Median time of ort.InferenceSession.create (graph optimization level all), 5 creations
# after one warm-up, so Node's and ORT's own library loading is not counted.
ORT_CREATE_JS = r"""
const ort = require(require('path').join(process.env.ORT_PEER_DIR, 'node_modules', 'onnxruntime-node'));
(async () => {
  const opts = {graphOptimizationLevel: 'all', intraOpNumThreads: Number(process.argv[2])};
  await ort.InferenceSession.create(process.argv[1], opts);
  const ms = [];
  for (let i = 0; i < 5; ++i) {
    const t0 = process.hrtime.bigint();
    await ort.InferenceSession.create(process.argv[1], opts);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  console.log(ms[2]);
})();
"""


def ort_session_ms(model, threads):
    r = subprocess.run(["node", "-e", ORT_CREATE_JS, model, str(threads)], capture_output=True, text=True)
    try:
        return float(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--qrt", default=os.path.join(HERE, "..", "build", "qrt"))
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--passes", default="none,default")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate qrt and ORT this many times per model; report the medians over rounds and "
                         "the median of each round's ratio (shared, noisy machines: a ratio taken minutes apart "
                         "compares two machine states)")
    ap.add_argument("--hide-avx512", action="store_true",
                    help="run both qrt and ORT with AVX-512 hidden from CPUID (libqrt_hide_avx512.so beside "
                         "--qrt, tools/hide_avx512.cc): an AVX2-only CPU on an AVX-512 machine, for both peers")
    args = ap.parse_args()
    if args.hide_avx512:
        lib = os.path.join(os.path.dirname(os.path.abspath(args.qrt)), "libqrt_hide_avx512.so")
        probe = subprocess.run([args.qrt, "--help"], env=dict(os.environ, LD_PRELOAD=lib, QRT_HIDE_AVX512_REPORT="1"),
                               capture_output=True, text=True)
        if "hide_avx512: active" not in probe.stderr:
            sys.exit(f"--hide-avx512: {lib} is missing or this machine has no CPUID faulting: {probe.stderr.strip()}")
        os.environ["LD_PRELOAD"] = lib  # every child: qrt, node

    models = []
    for p in args.paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                m = os.path.join(p, name, "model.onnx")
                if os.path.isfile(m):
                    models.append(m)
        else:
            models.append(p)
    have_ort = os.path.isfile(PEER) and os.environ.get("ORT_PEER_DIR")
    passes = args.passes.split(",")
    cols = ["model"] + [f"qrt {p} us" for p in passes] + ["ORT all us"] + [f"ratio {p}" for p in passes] + \
           [f"min ratio {p}" for p in passes] + ["qrt RSS MiB", "ORT RSS MiB", "qrt load+compile ms", "ORT session ms"]
    rows = []
    for m in models:
        ins = inputs_dir(m)
        name = os.path.basename(os.path.dirname(m)) if os.path.basename(m) == "model.onnx" else os.path.basename(m)
        row = {"model": name}
        qrt_rss = None
        times, mins = {p: [] for p in passes}, {p: [] for p in passes}
        ort_times, ort_mins, ratios = [], [], {p: [] for p in passes}
        for _ in range(max(1, args.rounds)):
            for p in passes:
                cmd = [args.qrt, "bench", m, "--passes", p, "--iters", str(args.iters), "--warmup", str(args.warmup),
                       "--threads", str(args.threads), "--json"] + (["--inputs", ins] if ins else [])
                out, err, rss, status = peak_rss_of(cmd)
                j = parse_json(out)
                if j:
                    times[p].append(j["median_us"])
                    mins[p].append(j["min_us"])
                else:
                    row[f"qrt {p} err"] = err.strip().splitlines()[-1] if err.strip() else "failed"
                qrt_rss = max(qrt_rss or 0, rss)
                if j and p == passes[-1]:
                    row["qrt load+compile ms"] = j["load_ms"] + j["compile_ms"]
            if have_ort:
                cmd = ["node", PEER, m, "--opt", "all", "--threads", str(args.threads), "--warmup", str(args.warmup),
                       "--runs", str(args.iters), "--summary"] + (["--inputs", ins] if ins else [])
                out, err, rss, status = peak_rss_of(cmd)
                j = parse_json(out)
                if j:
                    ort_times.append(j["median_us"])
                    ort_mins.append(j["min_us"])
                    for p in passes:
                        if len(times[p]) == len(ort_times):
                            ratios[p].append(times[p][-1] / j["median_us"])
                row["ORT RSS MiB"] = rss / 1024
        for p in passes:
            row[f"qrt {p} us"] = statistics.median(times[p]) if times[p] else None
            row[f"ratio {p}"] = statistics.median(ratios[p]) if ratios[p] else None
            row[f"min ratio {p}"] = min(mins[p]) / min(ort_mins) if mins[p] and ort_mins else None
        row["ORT all us"] = statistics.median(ort_times) if ort_times else None
        row["qrt RSS MiB"] = qrt_rss / 1024 if qrt_rss else None
        if have_ort:
            row["ORT session ms"] = ort_session_ms(m, args.threads)
        rows.append(row)

    def fmt(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.3g}" if v < 10 else f"{v:.1f}"
        return str(v)

    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(fmt(r.get(c)) for c in cols) + " |")
    for r in rows:
        for k, v in r.items():
            if k.endswith(" err"):
                print(f"{r['model']}: {k}: {v}", file=sys.stderr)
    print("ratio = qrt median / ORT median (below 1: qrt faster), the median over rounds of each round's ratio "
          f"({max(1, args.rounds)} rounds); min ratio = qrt's fastest run / ORT's fastest, over all rounds (what each "
          "reaches when the host leaves it alone). ORT latency includes ~50 us of Node binding overhead per run.",
          file=sys.stderr)


if __name__ == "__main__":
    main()
