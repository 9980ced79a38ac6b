#!/usr/bin/python3
"""Writes models/pictures/: real photographs preprocessed for MobileNetV2 and YOLOv8n, and
ONNX Runtime's results on them (expected.json), for tests/e2e/pictures_test.cc.

The photos are scikit-image's sample images (Debian package python3-skimage). Each is stored
as the uint8 RGB HWC image of shape [224,224,3] that goes into the model after the geometric
preprocessing (resize, crop or letterbox); the test does the rest (to float, /255, normalize,
HWC -> NCHW) exactly as below, in float32, so qrt and ONNX Runtime see bit-identical inputs
(checked through a weighted checksum in expected.json).

ONNX Runtime is the peer in ../shared/peers/ort (onnxruntime-node 1.30, run with
`--opt all --threads 1`; set ORT_PEER_DIR, see its README). The models come from
../shared/models (override with --models DIR).

Run with Debian's python3 (python3-skimage, python3-numpy, python3-pil):
    ORT_PEER_DIR=/tmp/ort-peer /usr/bin/python3 tools/make_picture_inputs.py
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import PIL
import skimage
import skimage.data
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
OUT = os.path.join(ROOT, "models", "pictures")

# name in the files -> skimage loader. Four photos with an obvious ImageNet / COCO subject.
PHOTOS = {
    "chelsea": skimage.data.chelsea,                           # tabby cat
    "coffee": skimage.data.coffee,                             # cup of coffee
    "astronaut": skimage.data.astronaut,                       # Eileen Collins (person)
    "motorcycle": lambda: skimage.data.stereo_motorcycle()[0],  # left view of a motorbike
}

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
SIZE = 224
CONF = 0.25
IOU = 0.45


# ---- geometry (uint8 in, uint8 out) -----------------------------------------------------
def mobilenet_crop(img):
    """torchvision: Resize(256) (shorter side, bilinear with antialias, as PIL does it),
    CenterCrop(224)."""
    h, w = img.shape[:2]
    if w <= h:
        nw, nh = 256, int(256 * h / w)
    else:
        nh, nw = 256, int(256 * w / h)
    im = Image.fromarray(img).resize((nw, nh), Image.BILINEAR)
    top = int(round((nh - SIZE) / 2.0))
    left = int(round((nw - SIZE) / 2.0))
    return np.asarray(im.crop((left, top, left + SIZE, top + SIZE)), dtype=np.uint8).copy()


def yolo_letterbox(img):
    """Ultralytics LetterBox(224, auto=False): scale the longer side to 224 keeping the aspect
    ratio, pad evenly with gray 114. (Ultralytics resizes with cv2 INTER_LINEAR; Debian has no
    python3-opencv here, so PIL's bilinear is used.)"""
    h, w = img.shape[:2]
    r = min(SIZE / h, SIZE / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    dw, dh = (SIZE - nw) / 2, (SIZE - nh) / 2
    im = np.asarray(Image.fromarray(img).resize((nw, nh), Image.BILINEAR), dtype=np.uint8)
    top, left = int(round(dh - 0.1)), int(round(dw - 0.1))
    out = np.full((SIZE, SIZE, 3), 114, dtype=np.uint8)
    out[top:top + nh, left:left + nw] = im
    return out


# ---- to float (mirrored in pictures_test.cc; every step a single float32 operation) ---------
def mobilenet_tensor(hwc):
    x = hwc.astype(np.float32) / np.float32(255)
    x = (x - MEAN) / STD
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def yolo_tensor(hwc):
    x = hwc.astype(np.float32) / np.float32(255)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def checksum(x):
    """sum_i x[i] * ((i % 251) + 1), exactly rounded; catches layout and channel mistakes."""
    flat = x.reshape(-1).astype(np.float64)
    w = (np.arange(flat.size) % 251 + 1).astype(np.float64)
    return math.fsum((flat * w).tolist())


# ---- postprocessing (mirrored in pictures_test.cc) ----------------------------------------
def top5(logits):
    v = logits.reshape(-1)
    order = sorted(range(v.size), key=lambda i: (-float(v[i]), i))
    return order[:5], [float(v[i]) for i in order[:5]]


def iou(a, b):
    ax0, ay0, ax1, ay1 = a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2
    bx0, by0, bx1, by1 = b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2
    iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    ih = max(0.0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def yolo_detect(out):
    """output0 [1,84,N]: rows 0-3 box cx,cy,w,h, rows 4-83 class scores. Per anchor: best class
    (first on ties) and its score; keep score > 0.25; per-class greedy NMS at IoU 0.45 (higher
    score first, lower anchor index on ties)."""
    o = out.reshape(84, -1).astype(np.float64)
    cands = []
    for i in range(o.shape[1]):
        scores = o[4:, i]
        c = int(np.argmax(scores))
        if scores[c] > CONF:
            cands.append((float(scores[c]), i, c, [float(v) for v in o[:4, i]]))
    cands.sort(key=lambda t: (-t[0], t[1]))
    kept = []
    for s, i, c, box in cands:
        if all(k[2] != c or iou(k[3], box) <= IOU for k in kept):
            kept.append((s, i, c, box))
    return [{"class": c, "score": s, "anchor": i, "box": [round(v, 3) for v in box]}
            for s, i, c, box in kept]


# ---- ONNX Runtime ---------------------------------------------------------------------------
# Both models were calibrated on random data, and their output quantizers saturate on real
# photos: MobileNetV2's logits are clipped at 128 * 0.0538 = 6.88 (15-43 classes tie at the top
# on these photos, so the literal argmax is just the lowest tied index), and YOLOv8n's class
# scores can never reach the 0.25 threshold (the Sigmoid's quantizer tops out at 0.0435 and the
# output quantizer's step is 1.01), so output0 never holds a detection. The tests therefore also
# read one internal tensor of each model as an extra graph output ("tap"): MobileNetV2's Gemm
# output before its quantizer (the real logits) and YOLOv8n's class logits before the Sigmoid
# (a DequantizeLinear output; its zero point caps them at 0, i.e. probability 0.5).
TAPS = {
    "mobilenetv2": "output_QuantizeLinear_Input",
    "yolov8n": "/model.22/Concat_1_output_0_DequantizeLinear_Output",
}


def with_tap(src, tap, dst):
    import onnx
    from onnx import TensorProto, helper
    m = onnx.load(src)
    m.graph.output.append(helper.make_tensor_value_info(tap, TensorProto.FLOAT, None))
    onnx.save(m, dst)


def ort_run(peer, model, input_name, x, opt):
    """Returns the model's outputs in graph order."""
    import onnx
    names = [o.name for o in onnx.load(model, load_external_data=False).graph.output]
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "x.npy"), x)
        out = os.path.join(d, "out")
        cmd = ["node", os.path.join(peer, "ort_run.js"), model, "--input", f"{input_name}={d}/x.npy",
               "--out", out, "--opt", opt, "--threads", "1", "--quiet"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        files = os.listdir(out)
        res = []
        for n in names:  # ort_run.js writes <name>.npy with '/' replaced by '_'
            f = n.replace("/", "_") + ".npy"
            assert f in files, (f, files)
            res.append(np.load(os.path.join(out, f)))
        return res


def mobilenet_result(literal, logits):
    lit = literal.reshape(-1)
    top = float(lit.max())
    idx, val = top5(logits)
    return {"top1": idx[0], "top5": idx, "top5_logits": val,
            "literal_top1": int(np.argmax(lit)), "literal_max": top,
            "literal_at_max": [int(i) for i in np.nonzero(lit == top)[0]]}


def yolo_result(output0, cls_logits):
    lit = yolo_detect(output0)
    o = output0.reshape(84, -1).astype(np.float64)
    prob = 1.0 / (1.0 + np.exp(-cls_logits.reshape(80, -1).astype(np.float64)))
    dets = yolo_detect(np.concatenate([o[:4], prob], 0))
    return {"classes": sorted({d["class"] for d in dets}), "detections": dets,
            "literal_classes": sorted({d["class"] for d in lit})}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models"))
    ap.add_argument("--peer", default=os.path.join(ROOT, "..", "shared", "peers", "ort"))
    args = ap.parse_args()
    if not os.environ.get("ORT_PEER_DIR"):
        sys.exit("set ORT_PEER_DIR (see ../shared/peers/ort/README.md)")
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.TemporaryDirectory()
    mnet = os.path.join(tmp.name, "mobilenetv2_tap.onnx")
    yolo = os.path.join(tmp.name, "yolov8n_tap.onnx")
    with_tap(os.path.join(args.models, "qdq_mobilenetv2_224.onnx"), TAPS["mobilenetv2"], mnet)
    with_tap(os.path.join(args.models, "qdq_yolov8n_224.onnx"), TAPS["yolov8n"], yolo)

    expected = {
        "generator": "tools/make_picture_inputs.py",
        "skimage": skimage.__version__, "pillow": PIL.__version__, "numpy": np.__version__,
        "ort": "onnxruntime-node 1.30.0, CPU EP, --threads 1; ort_all: --opt all, ort_disabled: --opt disabled",
        "mobilenetv2": {"model": "qdq_mobilenetv2_224.onnx", "input": "input", "tap": TAPS["mobilenetv2"],
                        "mean": MEAN.tolist(), "std": STD.tolist(), "photos": {}},
        "yolov8n": {"model": "qdq_yolov8n_224.onnx", "input": "images", "tap": TAPS["yolov8n"],
                    "conf": CONF, "iou": IOU, "photos": {}},
    }
    for name, load in PHOTOS.items():
        img = load()
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3, (name, img.shape)

        crop = mobilenet_crop(img)
        np.save(os.path.join(OUT, f"{name}_mobilenetv2.npy"), crop)
        x = mobilenet_tensor(crop)
        res = {"source_shape": list(img.shape), "checksum": checksum(x)}
        for opt in ("all", "disabled"):
            res[f"ort_{opt}"] = mobilenet_result(*ort_run(args.peer, mnet, "input", x, opt))
        expected["mobilenetv2"]["photos"][name] = res
        m = res

        box = yolo_letterbox(img)
        np.save(os.path.join(OUT, f"{name}_yolov8n.npy"), box)
        x = yolo_tensor(box)
        res = {"source_shape": list(img.shape), "checksum": checksum(x)}
        for opt in ("all", "disabled"):
            res[f"ort_{opt}"] = yolo_result(*ort_run(args.peer, yolo, "images", x, opt))
        expected["yolov8n"]["photos"][name] = res
        print(f"{name}: mobilenetv2 top1 {m['ort_all']['top1']} (disabled {m['ort_disabled']['top1']}), "
              f"literal top1 {m['ort_all']['literal_top1']} of {len(m['ort_all']['literal_at_max'])} tied; "
              f"yolov8n classes {res['ort_all']['classes']} (disabled {res['ort_disabled']['classes']}), "
              f"literal {res['ort_all']['literal_classes']}")

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
