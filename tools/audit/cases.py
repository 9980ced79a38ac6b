"""The exactness audit's cases: small DequantizeLinear -> op -> QuantizeLinear models whose
two quantizers share one scale and zero point, the tie-heavy setting of tf2onnx and TFLite
converted models (interpolation and averaging weights put many values exactly on a rounding
boundary).

A case is a dict:
  name     unique, [a-z0-9_]
  op       the op between the quantizers
  opset    the model's default-domain opset
  shape    the 8-bit input's shape
  attrs    the op's attributes
  consts   extra op inputs after the activation, in order: None (omitted), a numpy array
           (an initializer) or "dq" (the activation again, for binary ops)
  qtype    np.uint8 or np.int8; scale, zp: the shared quantization
  seed     for the input data
  exception  where qrt follows the ONNX specification and ONNX Runtime does not: the reason
           (the tool reports the case but does not count it, and writes no test data for it)
Every case's input covers its type's whole range, ends included.
"""
import numpy as np

F32 = np.float32
I64 = np.int64


def case(name, op, shape, attrs=None, consts=(), opset=13, qtype=np.uint8, scale=0.1, zp=None, seed=0,
         exception=None):
    if zp is None:
        zp = 128 if qtype == np.uint8 else 0
    return dict(name=name, op=op, opset=opset, shape=list(shape), attrs=attrs or {}, consts=list(consts),
                qtype=qtype, scale=float(scale), zp=int(zp), seed=seed, exception=exception)


def f32(*v):
    return np.array(v, dtype=F32)


def i64(*v):
    return np.array(v, dtype=I64)


def resize_cases():
    out = []
    x = [1, 2, 9, 11]
    coords = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"]
    scale_sets = {"1p5": (1.5, 1.5), "0p5": (0.5, 0.5), "3x2": (3.0, 2.0), "0p6x1p7": (0.6, 1.7), "2": (2.0, 2.0)}
    for coord in coords:
        for sname, (sh, sw) in scale_sets.items():
            for mode in ("linear", "nearest", "cubic"):
                if mode != "nearest" and coord == "tf_half_pixel_for_nn":
                    continue
                attrs = {"mode": mode, "coordinate_transformation_mode": coord}
                if mode == "nearest":
                    attrs["nearest_mode"] = "round_prefer_floor"
                out.append(case(f"resize_{mode}_{coord}_{sname}", "Resize", x, attrs,
                                [None, f32(1, 1, sh, sw)], seed=len(out)))
    # sizes that do not divide, every nearest_mode, cubic variants
    for coord in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"):
        for mode in ("linear", "cubic"):
            out.append(case(f"resize_{mode}_{coord}_sizes_13x7", "Resize", x,
                            {"mode": mode, "coordinate_transformation_mode": coord},
                            [None, None, i64(1, 2, 13, 7)], seed=len(out)))
        for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
            out.append(case(f"resize_nearest_{coord}_{nm}_sizes_13x7", "Resize", x,
                            {"mode": "nearest", "coordinate_transformation_mode": coord, "nearest_mode": nm},
                            [None, None, i64(1, 2, 13, 7)], seed=len(out)))
    for a in (-0.5, -0.75):
        for ex in (0, 1):
            for sname, (sh, sw) in (("1p5", (1.5, 1.5)), ("0p6x1p7", (0.6, 1.7))):
                out.append(case(f"resize_cubic_a{int(-a * 100)}_ex{ex}_{sname}", "Resize", x,
                                {"mode": "cubic", "cubic_coeff_a": a, "exclude_outside": ex},
                                [None, f32(1, 1, sh, sw)], seed=len(out)))
    # tf_crop_and_resize with an roi that reaches outside the input, and extrapolation
    roi = f32(0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3)
    for mode in ("linear", "nearest", "cubic"):
        out.append(case(f"resize_{mode}_tf_crop_and_resize", "Resize", x,
                        {"mode": mode, "coordinate_transformation_mode": "tf_crop_and_resize",
                         "extrapolation_value": 1.5}, [roi, None, i64(1, 2, 10, 8)], seed=len(out)))
    # other ranks and layouts: 2-D, NHWC, 3-D and 5-D trilinear
    out.append(case("resize_linear_2d_1p5", "Resize", [9, 11], {"mode": "linear"}, [None, f32(1.5, 0.75)]))
    out.append(case("resize_cubic_2d_1p5", "Resize", [9, 11], {"mode": "cubic"}, [None, f32(1.5, 0.75)]))
    out.append(case("resize_linear_nhwc_1p5", "Resize", [1, 9, 11, 3], {"mode": "linear"},
                    [None, f32(1, 1.5, 1.5, 1)]))
    out.append(case("resize_linear_3d_trilinear", "Resize", [5, 6, 7], {"mode": "linear"},
                    [None, f32(1.5, 0.5, 1.5)]))
    out.append(case("resize_linear_5d_trilinear", "Resize", [1, 2, 5, 6, 7], {"mode": "linear"},
                    [None, f32(1, 1, 1.5, 0.5, 1.5)]))
    out.append(case("resize_linear_scale_1p4_on_5", "Resize", [1, 1, 5, 6], {"mode": "linear"},
                    [None, f32(1, 1, 1.4, 1)],
                    exception="output length: the spec's floor(5 x 1.39999998) is 6; ORT rounds the product "
                              "to float (7.0) first and gives 7"))
    # opset 18-19: axes, half_pixel_symmetric, keep_aspect_ratio_policy
    for mode in ("linear", "nearest", "cubic"):
        out.append(case(f"resize_{mode}_half_pixel_symmetric_1p5", "Resize", x,
                        {"mode": mode, "coordinate_transformation_mode": "half_pixel_symmetric"},
                        [None, f32(1, 1, 1.5, 0.7)], opset=19))
        out.append(case(f"resize_{mode}_axes_2_3", "Resize", x, {"mode": mode, "axes": [2, 3]},
                        [None, f32(1.5, 0.7)], opset=19))
        for policy in ("not_larger", "not_smaller"):
            out.append(case(f"resize_{mode}_{policy}", "Resize", x,
                            {"mode": mode, "keep_aspect_ratio_policy": policy, "axes": [2, 3]},
                            [None, None, i64(14, 15)], opset=19))
    # opset 10 (asymmetric, nearest rounding of its own), int8 and zero points at the ends
    for mode in ("nearest", "linear"):
        for sname, s in (("0p6", 0.6), ("1p5", 1.5)):
            out.append(case(f"resize10_{mode}_{sname}", "Resize", x, {"mode": mode}, [f32(1, 1, s, s)], opset=10))
    for qt, zp in ((np.int8, -128), (np.int8, 127), (np.uint8, 0), (np.uint8, 255)):
        tag = f"{'s8' if qt == np.int8 else 'u8'}_zp{zp}".replace("-", "m")
        out.append(case(f"resize_linear_half_pixel_1p5_{tag}", "Resize", x, {"mode": "linear"},
                        [None, f32(1, 1, 1.5, 1.5)], qtype=qt, zp=zp, scale=0.0625))
    return out


def average_pool_cases():
    out = []
    x = [1, 3, 11, 13]
    geoms = {
        "k2s2": dict(kernel_shape=[2, 2], strides=[2, 2]),
        "k3p1": dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        "k3s2p1": dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        "k5": dict(kernel_shape=[5, 5]),
        "k5p2": dict(kernel_shape=[5, 5], pads=[2, 2, 2, 2]),
        "k3x2_asym_pads": dict(kernel_shape=[3, 2], pads=[0, 1, 2, 1]),
        "k3s2_ceil": dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        "k2s3": dict(kernel_shape=[2, 2], strides=[3, 3]),
        "same_upper_k3s2": dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
        "same_lower_k4": dict(kernel_shape=[4, 4], auto_pad="SAME_LOWER"),
    }
    for gname, g in geoms.items():
        for cip in (0, 1):
            attrs = dict(g)
            attrs["count_include_pad"] = cip
            out.append(case(f"avgpool_{gname}_cip{cip}", "AveragePool", x, attrs, seed=len(out)))
    out.append(case("avgpool_k3_dilation2", "AveragePool", x, dict(kernel_shape=[3, 3], dilations=[2, 2]), opset=19))
    out.append(case("avgpool_1d_k3p1", "AveragePool", [1, 3, 17], dict(kernel_shape=[3], pads=[1, 1])))
    out.append(case("avgpool_1d_k4s2_cip1", "AveragePool", [1, 3, 17],
                    dict(kernel_shape=[4], strides=[2], pads=[1, 2], count_include_pad=1)))
    out.append(case("avgpool_3d_k3p1", "AveragePool", [1, 2, 5, 6, 7], dict(kernel_shape=[3, 3, 3], pads=[1] * 6)))
    out.append(case("avgpool_3d_k2s2_cip1", "AveragePool", [1, 2, 5, 6, 7],
                    dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2], pads=[0, 1, 0, 1, 0, 1], count_include_pad=1)))
    out.append(case("avgpool_wide_kernel_k1x35", "AveragePool", [1, 2, 3, 40], dict(kernel_shape=[1, 35])))
    out.append(case("avgpool_stride3_k3", "AveragePool", x, dict(kernel_shape=[3, 3], strides=[1, 3])))
    # ceil_mode windows that overhang the padding; the kernel as large as the plane
    for cip in (0, 1):
        out.append(case(f"avgpool_k3s2p1_ceil_overhang_cip{cip}", "AveragePool", [1, 3, 12, 14],
                        dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=cip)))
        out.append(case(f"avgpool_1d_k3s2_ceil_overhang_cip{cip}", "AveragePool", [1, 3, 12],
                        dict(kernel_shape=[3], strides=[2], ceil_mode=1, count_include_pad=cip)))
    out.append(case("avgpool_kernel_is_plane", "AveragePool", [1, 16, 7, 9], dict(kernel_shape=[7, 9])))
    out.append(case("avgpool_kernel_is_plane_s2", "AveragePool", [1, 16, 7, 9], dict(kernel_shape=[7, 9], strides=[2, 2])))
    # opset 19 (AveragePool's own kernel in ORT), with and without dilations
    for gname in ("k3p1", "k2s2", "k3s2_ceil", "k5p2"):
        for cip in (0, 1):
            attrs = dict(geoms[gname])
            attrs["count_include_pad"] = cip
            out.append(case(f"avgpool19_{gname}_cip{cip}", "AveragePool", x, attrs, opset=19, seed=len(out)))
    for cip in (0, 1):
        out.append(case(f"avgpool19_k3_dil2_p2_cip{cip}", "AveragePool", x,
                        dict(kernel_shape=[3, 3], dilations=[2, 2], pads=[2, 2, 2, 2], count_include_pad=cip), opset=19))
        out.append(case(f"avgpool19_1d_k3_dil3_p1_cip{cip}", "AveragePool", [1, 3, 17],
                        dict(kernel_shape=[3], dilations=[3], pads=[1, 1], count_include_pad=cip), opset=19))
    for qt, zp in ((np.int8, -128), (np.uint8, 255)):
        tag = f"{'s8' if qt == np.int8 else 'u8'}_zp{zp}".replace("-", "m")
        out.append(case(f"avgpool_k3p1_{tag}", "AveragePool", x, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                        qtype=qt, zp=zp, scale=0.0625))
    return out


def other_cases():
    out = []
    x = [1, 3, 11, 13]
    out.append(case("globalavgpool", "GlobalAveragePool", [1, 64, 7, 9]))
    out.append(case("globalavgpool_plane_of_16", "GlobalAveragePool", [2, 32, 4, 4]))
    out.append(case("globalavgpool_1d", "GlobalAveragePool", [1, 32, 37]))
    out.append(case("globalavgpool_3d", "GlobalAveragePool", [1, 16, 5, 6, 7]))
    out.append(case("globalmaxpool", "GlobalMaxPool", x))
    out.append(case("maxpool_k3s2p1", "MaxPool", x, dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])))
    out.append(case("maxpool_k2_ceil_dil2", "MaxPool", x,
                    dict(kernel_shape=[2, 2], strides=[2, 2], dilations=[2, 2], ceil_mode=1)))
    for axes, kd in (([2, 3], 1), ([1], 0), ([3], 1)):
        out.append(case(f"reducemean_axes{''.join(map(str, axes))}_k{kd}", "ReduceMean", x,
                        dict(axes=axes, keepdims=kd)))
    for axis in (1, -1):
        out.append(case(f"softmax_axis{axis}".replace("-", "m"), "Softmax", x, dict(axis=axis)))
    for op, attrs in (("Sigmoid", {}), ("Tanh", {}), ("HardSigmoid", dict(alpha=0.25, beta=0.5)),
                      ("LeakyRelu", dict(alpha=0.125)), ("Relu", {}), ("Exp", {}), ("Abs", {}), ("Neg", {})):
        out.append(case(op.lower(), op, x, attrs, scale=0.0625))
    out.append(case("sqrt", "Sqrt", x, scale=0.0625, zp=0))
    out.append(case("clip_opset13", "Clip", x, consts=[f32(-3.0), f32(6.0)]))
    for op in ("Add", "Mul", "Sub", "Div"):
        c = np.linspace(0.25, 2.0, 13).astype(F32)
        out.append(case(f"{op.lower()}_const_broadcast", op, x, consts=[c]))
        if op != "Div":
            out.append(case(f"{op.lower()}_self", op, x, consts=["dq"]))
    out.append(case("prelu_per_channel", "PRelu", x, consts=[f32(0.25, 0.5, 0.75).reshape(3, 1, 1)]))
    out.append(case("concat_self_axis1", "Concat", x, dict(axis=1), consts=["dq"]))
    out.append(case("transpose", "Transpose", x, dict(perm=[0, 2, 3, 1])))
    out.append(case("pad_reflect", "Pad", x, dict(mode="reflect"), consts=[i64(0, 0, 1, 2, 0, 0, 2, 1)]))
    rng = np.random.default_rng(7)
    gamma, beta = rng.uniform(0.5, 1.5, 3).astype(F32), rng.uniform(-1, 1, 3).astype(F32)
    mean, var = rng.uniform(-1, 1, 3).astype(F32), rng.uniform(0.5, 2, 3).astype(F32)
    out.append(case("batchnorm", "BatchNormalization", x, dict(epsilon=1e-5), consts=[gamma, beta, mean, var]))
    w = (rng.integers(-8, 9, (4, 3, 3, 3)) * 0.125).astype(F32)
    b = (rng.integers(-8, 9, 4) * 0.25).astype(F32)
    out.append(case("conv_k3p1", "Conv", x, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), consts=[w, b]))
    wd = (rng.integers(-8, 9, (3, 1, 3, 3)) * 0.125).astype(F32)
    out.append(case("conv_depthwise_k3s2", "Conv", x, dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                                          group=3), consts=[wd]))
    wm = (rng.integers(-8, 9, (13, 5)) * 0.125).astype(F32)
    out.append(case("matmul", "MatMul", x, consts=[wm]))
    return out


def all_cases():
    cases = resize_cases() + average_pool_cases() + other_cases()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases
