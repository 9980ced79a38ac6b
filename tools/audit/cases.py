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
           (an initializer) or "dq" (the activation again, for binary ops); with x_in_consts,
           all the op's inputs, "x" marking where the activation goes
  qtype    np.uint8 or np.int8; scale, zp: the shared quantization
  seed     for the input data
  dequantize, quantize  False for ops that take or give the 8-bit tensor themselves (the
           integer and QOperator ops); out_type is then the output's ONNX type
  domain   the op's domain ("" or "com.microsoft")
  extra_outputs  op outputs after the first, named but not graph outputs
  exception  where qrt follows the ONNX specification and ONNX Runtime does not: the reason
           (the tool reports the case but does not count it, and writes no test data for it)
Every case's input covers its type's whole range, ends included.
"""
import numpy as np
from onnx import TensorProto

F32 = np.float32
I64 = np.int64


def case(name, op, shape, attrs=None, consts=(), opset=13, qtype=np.uint8, scale=0.1, zp=None, seed=0,
         exception=None, dequantize=True, quantize=True, out_type=None, domain="", extra_outputs=0,
         x_in_consts=False):
    if zp is None:
        zp = 128 if qtype == np.uint8 else 0
    return dict(name=name, op=op, opset=opset, shape=list(shape), attrs=attrs or {}, consts=list(consts),
                qtype=qtype, scale=float(scale), zp=int(zp), seed=seed, exception=exception,
                dequantize=dequantize, quantize=quantize, out_type=out_type, domain=domain,
                extra_outputs=extra_outputs, x_in_consts=x_in_consts)


def f32(*v):
    return np.array(v, dtype=F32)


def sf(v):
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
    # antialias (opset 18): downscales stretch the filter, exclude_outside folds the edges
    for mode in ("linear", "cubic"):
        for sname, sc in (("0p5", (0.5, 0.5)), ("0p3x0p6", (0.3, 0.6)), ("1p5", (1.5, 1.5)), ("0p6x1p7", (0.6, 1.7))):
            for ex in (0, 1):
                out.append(case(f"resize_{mode}_antialias_{sname}_ex{ex}", "Resize", [1, 2, 19, 23],
                                {"mode": mode, "antialias": 1, "exclude_outside": ex},
                                [None, f32(1, 1, *sc)], opset=18, seed=len(out)))
        out.append(case(f"resize_{mode}_antialias_align_corners_sizes", "Resize", [1, 2, 19, 23],
                        {"mode": mode, "antialias": 1, "coordinate_transformation_mode": "align_corners"},
                        [None, None, i64(1, 2, 7, 9)], opset=18))
        out.append(case(f"resize_{mode}_antialias_2d", "Resize", [19, 23], {"mode": mode, "antialias": 1},
                        [None, f32(0.4, 0.7)], opset=18))
        out.append(case(f"resize_{mode}_antialias_nhwc", "Resize", [1, 19, 23, 3], {"mode": mode, "antialias": 1},
                        [None, f32(1, 0.4, 0.7, 1)], opset=18))
        out.append(case(f"resize_{mode}_antialias_tf_crop", "Resize", [1, 2, 19, 23],
                        {"mode": mode, "antialias": 1, "coordinate_transformation_mode": "tf_crop_and_resize",
                         "extrapolation_value": 2.0}, [f32(0, 0, -0.1, 0.2, 1, 1, 0.8, 1.2), None, i64(1, 2, 7, 9)],
                        opset=18, exception=None if mode == "cubic" else
                        "ORT 1.30 fails on this model (narrowing_error in its bilinear antialias kernel)"))
    out.append(case("resize_cubic_antialias_a50_0p5", "Resize", [1, 2, 19, 23],
                    {"mode": "cubic", "antialias": 1, "cubic_coeff_a": -0.5}, [None, f32(1, 1, 0.5, 0.5)], opset=18))
    out.append(case("resize_linear_antialias_3d", "Resize", [9, 10, 11], {"mode": "linear", "antialias": 1},
                    [None, f32(0.5, 0.6, 0.4)], opset=18))
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


def lp_pool_cases():
    out = []
    x = [1, 3, 11, 13]
    for p in (1, 2, 3):
        out.append(case(f"lppool_p{p}_k3p1", "LpPool", x, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], p=p),
                        opset=11, scale=0.05, seed=p))
        out.append(case(f"globallppool_p{p}", "GlobalLpPool", [1, 16, 5, 7], dict(p=p), scale=0.05, seed=p))
    out.append(case("lppool_k2s2", "LpPool", x, dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11, scale=0.05))
    out.append(case("lppool_1d_k3s2", "LpPool", [1, 3, 17], dict(kernel_shape=[3], strides=[2]), opset=11, scale=0.05))
    out.append(case("lppool18_k3_ceil", "LpPool", x, dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
                    opset=18, scale=0.05))
    out.append(case("lppool18_k3_dil2", "LpPool", x, dict(kernel_shape=[3, 3], dilations=[2, 2], pads=[1, 1, 1, 1]),
                    opset=18, scale=0.05))
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


def more_float_op_cases():
    out = []
    x = [1, 3, 11, 13]
    rng = np.random.default_rng(11)
    out.append(case("gather_axis2", "Gather", x, dict(axis=2), consts=[i64(0, 10, 3, 3, -1)]))
    out.append(case("slice_steps", "Slice", x, consts=[i64(1, 2), i64(11, 13), i64(2, 3), i64(2, 3)]))
    out.append(case("split_axis3", "Split", x, dict(axis=3), consts=[i64(6, 7)], extra_outputs=1))
    out.append(case("tile", "Tile", x, consts=[i64(1, 2, 1, 2)]))
    out.append(case("reshape", "Reshape", x, consts=[i64(3, -1)]))
    out.append(case("flatten_axis2", "Flatten", x, dict(axis=2)))
    out.append(case("squeeze", "Squeeze", x, consts=[i64(0)]))
    out.append(case("unsqueeze", "Unsqueeze", x, consts=[i64(0, 5)]))
    out.append(case("identity", "Identity", x))
    out.append(case("pad_constant", "Pad", x, dict(mode="constant"), consts=[i64(0, 0, 2, 1, 0, 0, 1, 2), f32(0.5)]))
    out.append(case("pad_edge", "Pad", x, dict(mode="edge"), consts=[i64(0, 1, 1, 0, 0, 0, 2, 3)]))
    out.append(case("clip_opset10_attributes", "Clip", x, dict(min=-2.0, max=3.5), opset=10))
    out.append(case("clip_opset11_min_only", "Clip", x, consts=[f32(-1.5)], opset=11))
    out.append(case("softmax_opset11_axis1", "Softmax", x, dict(axis=1), opset=11))
    out.append(case("softmax_axis2", "Softmax", x, dict(axis=2)))
    out.append(case("reducemean_opset18_axes_input", "ReduceMean", x, dict(keepdims=1), consts=[i64(1, 3)], opset=18))
    out.append(case("reducemean_all_axes", "ReduceMean", x, dict(keepdims=0)))
    out.append(case("hardsigmoid_default", "HardSigmoid", x))
    out.append(case("leakyrelu_default", "LeakyRelu", x))
    out.append(case("div_self", "Div", x, consts=["dq"], scale=0.1, zp=0, qtype=np.int8))
    w = (rng.integers(-8, 9, (13, 6)) * 0.125).astype(F32)
    out.append(case("matmul_batched", "MatMul", [2, 3, 4, 13], consts=[w]))
    wg = (rng.integers(-8, 9, (5, 13)) * 0.125).astype(F32)
    bg = (rng.integers(-8, 9, 5) * 0.25).astype(F32)
    out.append(case("gemm_transb_alpha_beta", "Gemm", [7, 13], dict(transB=1, alpha=0.5, beta=2.0), consts=[wg, bg]))
    out.append(case("gemm_one_row", "Gemm", [1, 13], dict(transB=1), consts=[wg, bg]))
    wc = (rng.integers(-8, 9, (4, 3, 1, 1)) * 0.125).astype(F32)
    out.append(case("conv_1x1", "Conv", x, dict(kernel_shape=[1, 1]), consts=[wc]))
    wd = (rng.integers(-8, 9, (6, 1, 3, 3)) * 0.125).astype(F32)
    out.append(case("conv_grouped_dilated", "Conv", x, dict(kernel_shape=[3, 3], group=3, dilations=[2, 2],
                                                           pads=[2, 2, 2, 2]), consts=[wd]))
    gamma, beta = rng.uniform(0.5, 1.5, 3).astype(F32), rng.uniform(-1, 1, 3).astype(F32)
    mean, var = rng.uniform(-1, 1, 3).astype(F32), rng.uniform(0.5, 2, 3).astype(F32)
    out.append(case("batchnorm_opset10", "BatchNormalization", x, dict(epsilon=1e-3), consts=[gamma, beta, mean, var],
                    opset=10))
    out.append(case("concat_three", "Concat", x, dict(axis=3), consts=["dq", "dq"]))
    out.append(case("transpose_default_perm", "Transpose", x))
    return out


def new_op_cases():
    """Ops added for issue 21 between a DequantizeLinear and a QuantizeLinear."""
    out = []
    x = [1, 3, 11, 13]
    rng = np.random.default_rng(21)
    for op in ["Floor", "Ceil", "Round", "Reciprocal", "Sqrt", "Erf", "Log", "Exp", "Sin", "Cos", "Elu", "Selu",
               "Celu", "Softplus", "Softsign", "HardSwish", "ThresholdedRelu", "Sign", "Mish"]:
        attrs = {}
        opset = {"Mish": 18, "HardSwish": 14}.get(op, 13)
        out.append(case(op.lower() + "_s8", op, x, attrs, opset=opset, zp=0, qtype=np.int8))
    out.append(case("shrink", "Shrink", x, dict(lambd=1.5, bias=0.5), zp=0, qtype=np.int8))
    out.append(case("pow_square", "Pow", x, consts=[f32(2.0)], zp=0, qtype=np.int8))
    out.append(case("pow_half", "Pow", x, consts=[f32(0.5)], zp=0, qtype=np.uint8))
    out.append(case("max_self_const", "Max", x, consts=["dq", f32(0.3)], opset=13))
    out.append(case("mean_self", "Mean", x, consts=["dq", "dq"], opset=13))
    for op in ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceL1", "ReduceSumSquare", "ReduceProd",
               "ReduceLogSumExp"]:
        out.append(case(op.lower() + "_axes13", op, x, dict(keepdims=1), consts=[i64(1, 3)], opset=18,
                        scale=0.02 if op == "ReduceProd" else 0.1))
    out.append(case("reducesum_last", "ReduceSum", x, dict(keepdims=0), consts=[i64(-1)], opset=18))
    out.append(case("reducemean_hw", "ReduceMean", x, dict(keepdims=1), consts=[i64(2, 3)], opset=18))
    scale, bias = rng.uniform(0.5, 1.5, 13).astype(F32), rng.uniform(-1, 1, 13).astype(F32)
    out.append(case("layernorm_last", "LayerNormalization", x, dict(axis=-1), consts=[scale, bias], opset=17))
    s2 = rng.uniform(0.5, 1.5, 11 * 13).reshape(11, 13).astype(F32)
    out.append(case("layernorm_axis2", "LayerNormalization", x, dict(axis=2), consts=[s2], opset=17))
    out.append(case("instancenorm", "InstanceNormalization", x, consts=[scale[:3], bias[:3]], opset=13))
    out.append(case("lpnorm_l2", "LpNormalization", x, dict(axis=-1, p=2), opset=13))
    out.append(case("mvn", "MeanVarianceNormalization", x, opset=13))
    out.append(case("lrn", "LRN", x, dict(size=3, alpha=1e-2, beta=0.75, bias=1.0), opset=13))
    out.append(case("logsoftmax", "LogSoftmax", x, dict(axis=-1), opset=13))
    out.append(case("hardmax", "Hardmax", x, dict(axis=1), opset=13))
    out.append(case("cumsum_axis3", "CumSum", x, consts=[np.array(3, np.int64)], opset=14))
    out.append(case("expand", "Expand", [1, 3, 1, 13], consts=[i64(2, 3, 4, 13)], opset=13))
    out.append(case("depthtospace_crd", "DepthToSpace", [1, 8, 3, 5], dict(blocksize=2, mode="CRD"), opset=13))
    out.append(case("spacetodepth", "SpaceToDepth", [1, 2, 6, 4], dict(blocksize=2), opset=13))
    idx = rng.integers(-3, 3, (1, 3, 11, 4)).astype(np.int64)
    out.append(case("gatherelements", "GatherElements", x, dict(axis=3), consts=[idx], opset=13))
    out.append(case("trilu_lower", "Trilu", x, dict(upper=0), consts=[np.array(1, np.int64)], opset=14))
    wt = (rng.integers(-8, 9, (3, 2, 3, 3)) * 0.125).astype(F32)
    bt = (rng.integers(-8, 9, 2) * 0.25).astype(F32)
    out.append(case("convtranspose_s2", "ConvTranspose", x, dict(strides=[2, 2], pads=[1, 1, 0, 0]), consts=[wt, bt],
                    opset=13))
    wg = (rng.integers(-8, 9, (3, 1, 2, 2)) * 0.125).astype(F32)
    out.append(case("convtranspose_depthwise", "ConvTranspose", x, dict(group=3, output_padding=[1, 0],
                                                                         strides=[2, 1]), consts=[wg], opset=13))
    return out


def integer_op_cases():
    """The ops that read the 8-bit tensor themselves."""
    out = []
    x = [1, 3, 11, 13]
    rng = np.random.default_rng(12)
    w8 = rng.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8)
    wu8 = rng.integers(0, 256, (4, 3, 3, 3)).astype(np.uint8)
    bias = rng.integers(-2000, 2000, 4).astype(np.int32)
    out.append(case("qlinearconv_s8w", "QLinearConv", x, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                    consts=[f32(0.1), np.uint8(128), w8, f32(0.02), np.int8(0), f32(0.37), np.uint8(120), bias],
                    dequantize=False, quantize=False, out_type=TensorProto.UINT8))
    out.append(case("qlinearconv_u8w_per_channel", "QLinearConv", x, dict(kernel_shape=[3, 3], strides=[2, 2]),
                    consts=[f32(0.1), np.uint8(128), wu8, f32(0.02, 0.03, 0.01, 0.05), np.array([128, 120, 130, 127], np.uint8),
                            f32(0.4), np.uint8(128)],
                    dequantize=False, quantize=False, out_type=TensorProto.UINT8))
    out.append(case("convinteger", "ConvInteger", x, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                    consts=[wu8, np.uint8(128), np.uint8(127)], dequantize=False, quantize=False,
                    out_type=TensorProto.INT32))
    wm = rng.integers(-128, 128, (13, 5)).astype(np.int8)
    out.append(case("qlinearmatmul", "QLinearMatMul", x,
                    consts=[f32(0.1), np.uint8(128), wm, f32(0.02), np.int8(0), f32(0.6), np.uint8(128)],
                    dequantize=False, quantize=False, out_type=TensorProto.UINT8))
    out.append(case("matmulinteger", "MatMulInteger", x, consts=[wm, np.uint8(128), np.int8(3)],
                    dequantize=False, quantize=False, out_type=TensorProto.INT32))
    for op in ("QLinearAdd", "QLinearMul"):
        b = rng.integers(0, 256, (13,)).astype(np.uint8)
        out.append(case(op.lower(), op, x, consts=[sf(0.1), np.uint8(128), b, sf(0.05), np.uint8(100), sf(0.1),
                                                   np.uint8(128)],
                        dequantize=False, quantize=False, out_type=TensorProto.UINT8, domain="com.microsoft"))
    for qt, name in ((np.uint8, "u8"), (np.int8, "s8")):
        zin, zout = (np.uint8(100), np.uint8(128)) if qt == np.uint8 else (np.int8(-20), np.int8(0))
        out_t = TensorProto.UINT8 if qt == np.uint8 else TensorProto.INT8
        for op, attrs in (("QLinearSigmoid", {}), ("QLinearLeakyRelu", dict(alpha=0.1))):
            out.append(case(f"{op.lower()}_{name}", op, x, attrs, consts=[sf(0.05), zin, sf(1 / 256), zout], qtype=qt,
                            dequantize=False, quantize=False, out_type=out_t, domain="com.microsoft"))
        out.append(case(f"qlinearglobalaveragepool_{name}", "QLinearGlobalAveragePool", x,
                        consts=[sf(0.1), zin, sf(0.07), zout], qtype=qt, dequantize=False, quantize=False,
                        out_type=out_t, domain="com.microsoft"))
    out.append(case("qlinearconcat", "QLinearConcat", x, dict(axis=1),
                    consts=[sf(0.08), np.uint8(120), "x", sf(0.1), np.uint8(128), "x", sf(0.08), np.uint8(120)],
                    dequantize=False, quantize=False, out_type=TensorProto.UINT8, domain="com.microsoft",
                    x_in_consts=True))
    out.append(case("dynamicquantizelinear", "DynamicQuantizeLinear", x, quantize=False, out_type=TensorProto.UINT8,
                    opset=11, extra_outputs=2))
    return out + contrib_pool_softmax_matmul_cases()


def contrib_pool_softmax_matmul_cases():
    """com.microsoft QLinearSoftmax, QLinearAveragePool, MatMulIntegerToFloat and
    DynamicQuantizeMatMul over their options."""
    out = []
    x = [1, 3, 11, 13]
    ms = dict(dequantize=False, quantize=False, domain="com.microsoft")
    for qt, name in ((np.uint8, "u8"), (np.int8, "s8")):
        out_t = TensorProto.UINT8 if qt == np.uint8 else TensorProto.INT8
        zin = qt(100) if qt == np.uint8 else qt(-20)
        zout = qt(0) if qt == np.uint8 else qt(-128)
        for tag, attrs in (("op12_axis1", dict(opset=12, axis=1)), ("op12_default", dict(opset=12)),
                           ("op13_last", dict(opset=13)), ("op13_axis1", dict(opset=13, axis=1)),
                           ("op13_axis2", dict(opset=13, axis=-2))):
            for xs, ys in ((0.05, 1 / 256), (0.2, 0.003), (0.013, 0.0041)):
                stag = f"{str(xs).replace('.', 'p')}_{str(round(ys, 4)).replace('.', 'p')}"
                out.append(case(f"qlinearsoftmax_{name}_{tag}_{stag}", "QLinearSoftmax", x, attrs,
                                consts=[sf(xs), zin, sf(ys), zout], qtype=qt, out_type=out_t, seed=len(out), **ms))
        # Rows so short that e[255] * floor(1 / y_scale) overflows float: ORT's result is y_zp.
        for d, ys in ((1, 1 / 256), (3, 0.001)):
            out.append(case(f"qlinearsoftmax_{name}_short_rows_{d}", "QLinearSoftmax", [2, 5, d], dict(opset=13),
                            consts=[sf(0.05), zin, sf(ys), zout], qtype=qt, out_type=out_t, seed=len(out), **ms))
        pools = (("k3p1_cip0", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
                 ("k3p1_cip1", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)),
                 ("k2s2", dict(kernel_shape=[2, 2], strides=[2, 2])),
                 ("k3s2_ceil_cip1", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 0], ceil_mode=1,
                                         count_include_pad=1)),
                 ("k3s2_ceil_cip0", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
                 ("same_upper_k4", dict(kernel_shape=[4, 4], auto_pad="SAME_UPPER")),
                 ("global_kernel", dict(kernel_shape=[11, 13])))
        for tag, attrs in pools:
            out.append(case(f"qlinearaveragepool_{name}_{tag}", "QLinearAveragePool", x, attrs,
                            consts=[sf(0.1), zin, sf(0.07), zout], qtype=qt, out_type=out_t, seed=len(out), **ms))
        out.append(case(f"qlinearaveragepool_{name}_nhwc_k3p1", "QLinearAveragePool", [1, 11, 13, 3],
                        dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], channels_last=1),
                        consts=[sf(0.1), zin, sf(0.07), zout], qtype=qt, out_type=out_t, seed=len(out), **ms))
        out.append(case(f"qlinearaveragepool_{name}_1d_k3s2", "QLinearAveragePool", [2, 3, 17],
                        dict(kernel_shape=[3], strides=[2], pads=[1, 1]),
                        consts=[sf(0.1), zin, sf(0.07), zout], qtype=qt, out_type=out_t, seed=len(out), **ms))
        out.append(case(f"qlinearaveragepool_{name}_3d_k2", "QLinearAveragePool", [1, 2, 5, 6, 7],
                        dict(kernel_shape=[2, 3, 2], pads=[0, 1, 1, 1, 1, 0]),
                        consts=[sf(0.1), zin, sf(0.07), zout], qtype=qt, out_type=out_t, seed=len(out), **ms))
    rng = np.random.default_rng(23)
    for bt, bname in ((np.int8, "s8"), (np.uint8, "u8")):
        info = np.iinfo(bt)
        b = rng.integers(int(info.min), int(info.max) + 1, (13, 5)).astype(bt)
        bz = rng.integers(int(info.min), int(info.max) + 1, 5).astype(bt)
        bias = rng.normal(0, 3, 5).astype(F32)
        bscale = f32(0.02, 0.031, 0.007, 0.05, 0.013)
        for tag, bs, z, bias_in in (("per_tensor", sf(0.02), bt(3), None), ("per_column", bscale, bz, bias),
                                    ("per_tensor_bias", sf(0.017), None, bias)):
            consts = [b, sf(0.1), bs, np.uint8(128), z, bias_in]
            if z is None:
                consts = [b, sf(0.1), bs, np.uint8(128), None, bias_in]
            out.append(case(f"matmulintegertofloat_{bname}_{tag}", "MatMulIntegerToFloat", x,
                            consts=consts, out_type=TensorProto.FLOAT, seed=len(out), **ms))
            out.append(case(f"dynamicquantizematmul_{bname}_{tag}", "DynamicQuantizeMatMul", x,
                            consts=[b, bs, z, bias_in], quantize=False, dequantize=True, out_type=TensorProto.FLOAT,
                            domain="com.microsoft", seed=len(out), scale=0.37))
    return out


def contrib_conv_where_cases():
    """com.microsoft QLinearConv (channels_last 1 and 0) and QLinearWhere."""
    out = []
    ms = dict(dequantize=False, quantize=False, domain="com.microsoft")
    rng = np.random.default_rng(31)
    w8 = rng.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8)
    wd = rng.integers(-128, 128, (3, 1, 3, 3)).astype(np.int8)
    w1 = rng.integers(-128, 128, (5, 3, 3)).astype(np.int8)
    bias = rng.integers(-2000, 2000, 4).astype(np.int32)
    qp = [f32(0.1), np.uint8(128)]
    yq = [f32(0.37), np.uint8(120)]
    out.append(case("msqlinearconv_nhwc_k3p1", "QLinearConv", [1, 11, 13, 3],
                    dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], channels_last=1),
                    consts=qp + [w8, f32(0.02), np.int8(0)] + yq + [bias], out_type=TensorProto.UINT8, **ms))
    out.append(case("msqlinearconv_nhwc_s2_per_channel", "QLinearConv", [2, 9, 8, 3],
                    dict(kernel_shape=[3, 3], strides=[2, 2], channels_last=1),
                    consts=qp + [w8, f32(0.02, 0.03, 0.01, 0.05), np.zeros(4, np.int8)] + yq,
                    out_type=TensorProto.UINT8, **ms))
    out.append(case("msqlinearconv_nhwc_depthwise", "QLinearConv", [1, 7, 9, 3],
                    dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=3, channels_last=1),
                    consts=qp + [wd, f32(0.04), np.int8(0)] + yq, out_type=TensorProto.UINT8, **ms))
    out.append(case("msqlinearconv_nhwc_1d", "QLinearConv", [1, 17, 3], dict(kernel_shape=[3], channels_last=1),
                    consts=qp + [w1, f32(0.03), np.int8(0)] + yq, out_type=TensorProto.UINT8, **ms))
    out.append(case("msqlinearconv_nchw", "QLinearConv", [1, 3, 11, 13], dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                    consts=qp + [w8, f32(0.02), np.int8(0)] + yq + [bias], out_type=TensorProto.UINT8, **ms))
    for qt, name in ((np.uint8, "u8"), (np.int8, "s8")):
        info = np.iinfo(qt)
        out_t = TensorProto.UINT8 if qt == np.uint8 else TensorProto.INT8
        zx, zy, zz = (qt(100), qt(140), qt(128)) if qt == np.uint8 else (qt(-20), qt(15), qt(0))
        other = rng.integers(int(info.min), int(info.max) + 1, (11, 13)).astype(qt)
        cond = rng.integers(0, 2, (1, 1, 11, 1)).astype(bool)
        out.append(case(f"qlinearwhere_{name}_x_input", "QLinearWhere", [1, 3, 11, 13],
                        consts=[cond, "x", sf(0.1), zx, other, sf(0.07), zy, sf(0.13), zz], qtype=qt,
                        out_type=out_t, x_in_consts=True, seed=len(out), **ms))
        out.append(case(f"qlinearwhere_{name}_y_input_same_grid", "QLinearWhere", [3, 11, 13],
                        consts=[cond[0], other, sf(0.13), zz, "x", sf(0.13), zz, sf(0.13), zz], qtype=qt,
                        out_type=out_t, x_in_consts=True, seed=len(out), **ms))
    return out


def fused_matmul_cases():
    """com.microsoft FusedMatMul over its flags: x dequantized as one operand, the other a constant."""
    out = []
    rng = np.random.default_rng(41)
    ms = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT, scale=0.037)

    def w(*shape):
        return rng.normal(0, 1, shape).astype(F32)

    for tag, shape, b, attrs in (
            ("plain_alpha", [1, 3, 11, 13], w(13, 5), dict(alpha=0.5)),
            ("alpha1_one_row_batch", [3, 1, 40], w(40, 6), {}),
            ("one_row_transb", [1, 37], w(6, 37), dict(transB=1)),
            ("one_row_transb_alpha", [1, 37], w(6, 37), dict(transB=1, alpha=1.7)),
            ("transa", [2, 3, 13, 11], w(13, 7), dict(transA=1, alpha=0.3)),
            ("transa_transb", [2, 13, 11], w(2, 7, 13), dict(transA=1, transB=1)),
            ("long_k_alpha", [2, 4, 300], w(300, 9), dict(alpha=0.125)),
            ("long_k_alpha_odd", [3, 520], w(520, 17), dict(alpha=0.3)),
            ("transbatch_a", [4, 2, 3, 5], w(2, 3, 5, 6), dict(transBatchA=1, alpha=2.0)),
            ("transbatch_a_one_row", [4, 2, 1, 5], w(2, 1, 5, 6), dict(transBatchA=1)),
            ("transbatch_b", [2, 3, 4, 5], w(5, 2, 3, 6), dict(transBatchB=1, alpha=0.7)),
            ("transbatch_both_trans", [5, 2, 3, 4], w(6, 2, 3, 5), dict(transBatchA=1, transA=1, transBatchB=1,
                                                                        transB=1))):
        out.append(case(f"fusedmatmul_{tag}", "FusedMatMul", shape, attrs, consts=[b], seed=len(out), **ms))
    plain = dict(dequantize=True, quantize=False, out_type=TensorProto.FLOAT, scale=0.037)
    out.append(case("matmul_one_row_const_b", "MatMul", [1, 37], consts=[w(37, 6)], seed=len(out), **plain))
    out.append(case("matmul_long_k_const_b", "MatMul", [3, 700], consts=[w(700, 5)], seed=len(out), **plain))
    out.append(case("gemm_one_row_transb_const_b", "Gemm", [1, 37], dict(transB=1), consts=[w(6, 37)], seed=len(out),
                    **plain))
    out.append(case("gemm_long_k_alpha_const_b", "Gemm", [3, 700], dict(alpha=0.3), consts=[w(700, 5)], seed=len(out),
                    **plain))
    out.append(case("gemm_long_k_alpha_runtime_b", "Gemm", [700, 5], dict(alpha=0.3), consts=[w(3, 700), "dq"],
                    x_in_consts=True, seed=len(out), **plain))
    out.append(case("matmul_one_row_runtime_b", "MatMul", [37, 6], consts=[w(1, 37), "dq"], x_in_consts=True,
                    seed=len(out), **plain))
    out.append(case("fusedmatmul_x_as_b", "FusedMatMul", [13, 6], dict(alpha=0.25), consts=[w(3, 4, 13), "dq"],
                    x_in_consts=True, seed=len(out), **ms))
    # One row times a transposed B that is no initializer: MLAS's one-row kernel, whose columns in
    # groups of four, two and one reduce their lane sums by three trees.
    for n in (11, 6, 1):
        out.append(case(f"gemm_one_row_transb_runtime_b_n{n}", "Gemm", [n, 37], dict(transB=1),
                        consts=[w(1, 37), "dq"], x_in_consts=True, seed=len(out), **plain))
    out.append(case("fusedmatmul_one_row_transb_runtime_b", "FusedMatMul", [7, 37], dict(transB=1),
                    consts=[w(1, 37), "dq"], x_in_consts=True, seed=len(out), **ms))
    return out


def layer_norm_family_cases():
    """com.microsoft SkipLayerNormalization / SkipSimplifiedLayerNormalization and
    SimplifiedLayerNormalization over row lengths on both sides of each kernel's switch."""
    out = []
    rng = np.random.default_rng(53)
    ms = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT, scale=0.037)
    for h in (5, 8, 15, 16, 17, 48, 100, 768):
        rows = 6 if h < 700 else 2
        skip = rng.normal(0.5, 2, (rows, h)).astype(F32)
        gamma = rng.normal(1, 0.3, h).astype(F32)
        beta = rng.normal(0, 0.3, h).astype(F32)
        bias = rng.normal(0, 0.5, h).astype(F32)
        out.append(case(f"skiplayernorm_h{h}", "SkipLayerNormalization", [rows, h], dict(epsilon=1e-5),
                        consts=[skip, gamma, beta, bias], seed=len(out), **ms))
        out.append(case(f"skiplayernorm_gamma_only_h{h}", "SkipLayerNormalization", [rows, h], dict(epsilon=1e-6),
                        consts=[skip, gamma], seed=len(out), **ms))
        out.append(case(f"skipsimplifiedlayernorm_h{h}", "SkipSimplifiedLayerNormalization", [rows, h],
                        dict(epsilon=1e-5), consts=[skip, gamma, bias], seed=len(out), **ms))
        out.append(case(f"simplifiedlayernorm_h{h}", "SimplifiedLayerNormalization", [rows, h], dict(epsilon=1e-5),
                        consts=[gamma], seed=len(out), dequantize=True, quantize=False, out_type=TensorProto.FLOAT,
                        scale=0.037))
    out.append(case("simplifiedlayernorm_axis1", "SimplifiedLayerNormalization", [2, 3, 8], dict(axis=1),
                    consts=[rng.normal(1, 0.3, (3, 8)).astype(F32)], seed=len(out), dequantize=True, quantize=False,
                    out_type=TensorProto.FLOAT, scale=0.037))
    return out


def embed_layer_norm_cases():
    """com.microsoft EmbedLayerNormalization: word embeddings from x, hidden sizes from 5 to 384,
    with and without segments, mask and position_ids (both shapes; ORT then wants mask_index)."""
    out = []
    rng = np.random.default_rng(67)
    ms = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT, scale=0.037,
              x_in_consts=True)
    i32 = np.int32
    for h in (5, 16, 17, 64, 128, 384):
        vocab, positions, b, s = 30, 12, 2, 7
        ids = rng.integers(0, vocab, (b, s)).astype(i32)
        seg = rng.integers(0, 2, (b, s)).astype(i32)
        pos_emb = rng.normal(0, 1, (positions, h)).astype(F32)
        seg_emb = rng.normal(0, 1, (2, h)).astype(F32)
        gamma = rng.normal(1, 0.3, h).astype(F32)
        beta = rng.normal(0, 0.3, h).astype(F32)
        mask = (rng.uniform(size=(b, s)) < 0.7).astype(i32)
        out.append(case(f"embedlayernorm_h{h}", "EmbedLayerNormalization", [vocab, h], dict(epsilon=1e-12),
                        consts=[ids, seg, "dq", pos_emb, seg_emb, gamma, beta, mask], seed=len(out),
                        extra_outputs=1, **ms))
        out.append(case(f"embedlayernorm_noseg_h{h}", "EmbedLayerNormalization", [vocab, h],
                        dict(epsilon=1e-5), consts=[ids, None, "dq", pos_emb, None, gamma, beta], seed=len(out),
                        extra_outputs=1, **ms))
        pos_ids = rng.integers(0, positions, (b, s)).astype(i32)
        out.append(case(f"embedlayernorm_position_ids_h{h}", "EmbedLayerNormalization", [vocab, h],
                        dict(epsilon=1e-12), consts=[ids, seg, "dq", pos_emb, seg_emb, gamma, beta, None, pos_ids],
                        seed=len(out), extra_outputs=1, **ms))
    out.append(case("embedlayernorm_position_ids_1xs", "EmbedLayerNormalization", [30, 16], dict(epsilon=1e-12),
                    consts=[rng.integers(0, 30, (2, 5)).astype(i32), None, "dq", rng.normal(0, 1, (9, 16)).astype(F32),
                            None, rng.normal(1, .3, 16).astype(F32), rng.normal(0, .3, 16).astype(F32), None,
                            rng.integers(0, 9, (1, 5)).astype(i32)], seed=len(out), extra_outputs=1, **ms))
    # QEmbedLayerNormalization: x is the quantized word table; every tensor with its own grid.
    for qtype, h, with_seg in ((np.uint8, 16, True), (np.uint8, 5, False), (np.int8, 64, True), (np.uint8, 384, True)):
        info = np.iinfo(qtype)
        q = lambda shape: rng.integers(info.min, info.max + 1, shape).astype(qtype)
        zp = lambda: np.array(rng.integers(info.min, info.max + 1), qtype)
        vocab, b, s = 30, 2, 7
        scales = [np.array(rng.uniform(0.002, 0.05), F32) for _ in range(5)]
        zps = [zp() for _ in range(5)]
        seg = [rng.integers(0, 2, (b, s)).astype(i32)] if with_seg else [None]
        out.append(case(f"qembedlayernorm_{np.dtype(qtype).name}_h{h}{'' if with_seg else '_noseg'}",
                        "QEmbedLayerNormalization", [vocab, h], dict(epsilon=1e-12),
                        consts=[rng.integers(0, vocab, (b, s)).astype(i32)] + seg
                        + ["x", q((12, h)), q((2, h)) if with_seg else None, q(h), q(h),
                           (rng.uniform(size=(b, s)) < .7).astype(i32)]
                        + [scales[0], scales[1], scales[2] if with_seg else None, scales[3], scales[4]]
                        + [zps[0], zps[1], zps[2] if with_seg else None, zps[3], zps[4]],
                        seed=len(out), extra_outputs=1, qtype=qtype, dequantize=False, quantize=False,
                        domain="com.microsoft", out_type=TensorProto.FLOAT, x_in_consts=True))
    return out


def rotary_cases():
    """com.microsoft RotaryEmbedding: both pairings, head sizes on both sides of MLAS's 16-wide loop,
    partial rotation, one start position, the 4-D layout."""
    out = []
    rng = np.random.default_rng(61)
    ms = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT, scale=0.037)

    def caches(positions, d):
        angles = rng.uniform(0, 6.3, (positions, d // 2))
        return np.cos(angles).astype(F32), np.sin(angles).astype(F32)

    for inter in (0, 1):
        for h in (8, 24, 40, 64):
            cos, sin = caches(32, h)
            pos = rng.integers(0, 32, (2, 5)).astype(I64)
            out.append(case(f"rotary_i{inter}_h{h}", "RotaryEmbedding", [2, 5, 2 * h], dict(interleaved=inter, num_heads=2),
                            consts=[pos, cos, sin], seed=len(out), **ms))
        cos, sin = caches(40, 12)
        out.append(case(f"rotary_i{inter}_partial12_of32_start", "RotaryEmbedding", [2, 5, 64],
                        dict(interleaved=inter, num_heads=2, rotary_embedding_dim=12),
                        consts=[i64(3), cos, sin], seed=len(out), **ms))
        cos, sin = caches(30, 24)
        out.append(case(f"rotary_i{inter}_4d", "RotaryEmbedding", [2, 3, 5, 24], dict(interleaved=inter),
                        consts=[rng.integers(0, 30, (2, 5)).astype(I64), cos, sin], seed=len(out), **ms))
    # is_packed_batching: ORT 1.30's CPU kernel reads the same layouts and ignores the flag.
    cos, sin = caches(32, 24)
    out.append(case("rotary_packed_3d", "RotaryEmbedding", [2, 5, 48], dict(num_heads=2, is_packed_batching=1),
                    consts=[rng.integers(0, 32, (2, 5)).astype(I64), cos, sin], seed=len(out), **ms))
    out.append(case("rotary_packed_4d_start", "RotaryEmbedding", [2, 3, 5, 24],
                    dict(interleaved=1, is_packed_batching=1), consts=[i64(4), cos, sin], seed=len(out), **ms))
    return out


def attention_cases():
    """com.microsoft Attention, QAttention, FastGelu and QuickGelu with float outputs: every key
    mask format, causal rows, past and present, attention bias broadcasts, unequal Q and V head
    sizes, a scale, weights over 256 rows (ORT packs initializer weights: k blocks of 256) and as
    a graph value (unpacked orders), one-token decoding, rows longer than 16 (the softmax's lane
    count matters there)."""
    out = []
    rng = np.random.default_rng(71)
    ms = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT, scale=0.037)
    i32 = np.int32

    def w(di, cols, std=0.2):
        return rng.normal(0, std, (di, cols)).astype(F32)

    def bias(n):
        return rng.normal(0, 0.3, n).astype(F32)

    def att(name, b, s, di, attrs, consts, extra_outputs=0):
        out.append(case(name, "Attention", [b, s, di], attrs, consts, seed=len(out), extra_outputs=extra_outputs, **ms))

    h2 = dict(num_heads=2)
    att("attention_basic", 2, 5, 16, h2, [w(16, 48), bias(48)])
    att("attention_rows_longer_than_16", 1, 37, 32, dict(num_heads=4), [w(32, 96), bias(96)])
    att("attention_mask_keys", 2, 7, 16, h2,
        [w(16, 48), bias(48), np.array([[1, 1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 0, 0]], i32)])
    att("attention_mask_key_end", 2, 6, 16, h2, [w(16, 48), bias(48), np.array([4, 9], i32)])
    att("attention_mask_start_end", 2, 6, 16, h2, [w(16, 48), bias(48), np.array([5, 6, 1, 2], i32)])
    att("attention_mask_3d", 2, 5, 16, h2, [w(16, 48), bias(48), (rng.uniform(size=(2, 5, 5)) < 0.7).astype(i32)])
    att("attention_mask_dummy_2d", 2, 5, 16, h2, [w(16, 48), bias(48), np.zeros((2, 1), i32)])
    att("attention_mask_filter_value", 2, 7, 16, dict(num_heads=2, mask_filter_value=-3.0),
        [w(16, 48), bias(48), (rng.uniform(size=(2, 7)) < 0.6).astype(i32)])
    att("attention_unidirectional", 2, 6, 16, dict(num_heads=2, unidirectional=1), [w(16, 48), bias(48)])
    att("attention_unidirectional_mask", 2, 20, 16, dict(num_heads=2, unidirectional=1),
        [w(16, 48), bias(48), np.array([17, 20], i32)])
    att("attention_qkv_hidden_sizes", 2, 5, 16, dict(num_heads=2, qkv_hidden_sizes=[16, 16, 24]),
        [w(16, 56), bias(56)])
    att("attention_scale", 1, 9, 24, dict(num_heads=3, scale=0.3), [w(24, 72), bias(72)])
    att("attention_scale_one_single_row", 2, 1, 16, dict(num_heads=2, scale=1.0), [w(16, 48), bias(48)])
    att("attention_bias_per_head", 2, 5, 16, h2,
        [w(16, 48), bias(48), None, None, rng.normal(0, 1, (1, 2, 5, 5)).astype(F32)])
    att("attention_bias_per_batch_mask", 2, 5, 16, h2,
        [w(16, 48), bias(48), np.array([3, 5], i32), None, rng.normal(0, 1, (2, 1, 5, 5)).astype(F32)])
    att("attention_past_present", 2, 3, 16, h2,
        [w(16, 48), bias(48), None, rng.normal(0, 1, (2, 2, 2, 4, 8)).astype(F32)], extra_outputs=1)
    att("attention_past_decode_causal", 2, 1, 16, dict(num_heads=2, unidirectional=1),
        [w(16, 48), bias(48), np.array([[1] * 6 + [0], [1] * 7], i32), rng.normal(0, 1, (2, 2, 2, 6, 8)).astype(F32)],
        extra_outputs=1)
    att("attention_past_causal_rows", 1, 4, 16, dict(num_heads=2, unidirectional=1),
        [w(16, 48), bias(48), None, rng.normal(0, 1, (2, 1, 2, 3, 8)).astype(F32)], extra_outputs=1)
    att("attention_long_k_packed", 1, 4, 300, dict(num_heads=2), [w(300, 48, 0.05), bias(48)])
    att("attention_one_row_packed", 1, 1, 40, dict(num_heads=2), [w(40, 24), bias(24)])
    # The weights a graph value (x dequantized): ORT's unpacked orders; the input a constant.
    for s_len in (1, 4):
        out.append(case(f"attention_runtime_weights_s{s_len}", "Attention", [40, 24], dict(num_heads=2),
                        [rng.normal(0, 1, (1, s_len, 40)).astype(F32), "x", bias(24)], seed=len(out),
                        x_in_consts=True, **ms))
    # QAttention: 8-bit input, int8 or uint8 weights, per-tensor or per-column scales and zero points.
    qs = dict(dequantize=False, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT)
    for wtype, per_col, extra in ((np.int8, False, ""), (np.uint8, True, ""), (np.int8, True, "_mask_causal"),
                                  (np.uint8, False, "_past")):
        info = np.iinfo(wtype)
        b, s_len, di, n = 2, 6, 24, 3
        weight = rng.integers(info.min, info.max + 1, (di, 3 * di)).astype(wtype)
        wscale = rng.uniform(0.001, 0.01, 3 * di if per_col else ()).astype(F32)
        wzp = rng.integers(info.min, info.max + 1, 3 * di if per_col else ()).astype(wtype)
        attrs = dict(num_heads=n)
        mask, past = None, None
        if extra == "_mask_causal":
            attrs["unidirectional"] = 1
            mask = np.array([[1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1]], i32)
        if extra == "_past":
            past = rng.normal(0, 1, (2, b, n, 3, di // n)).astype(F32)
        name = f"qattention_{np.dtype(wtype).name}_{'per_column' if per_col else 'per_tensor'}{extra}"
        out.append(case(name, "QAttention", [b, s_len, di], attrs,
                        [weight, bias(3 * di), np.array(0.02, F32), wscale, mask, np.array(121, np.uint8), wzp, past],
                        seed=len(out), qtype=np.uint8, extra_outputs=1 if past is not None else 0, **qs))
    # FastGelu (with and without bias) and QuickGelu: MLAS's tanh and sigmoid.
    gs = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT)
    out.append(case("fastgelu_f32", "FastGelu", [3, 40], {}, seed=len(out), scale=0.05, **gs))
    out.append(case("fastgelu_bias_f32", "FastGelu", [3, 40], {}, [bias(40)], seed=len(out), scale=0.05, **gs))
    out.append(case("quickgelu_f32", "QuickGelu", [3, 40], {}, seed=len(out), scale=0.05, **gs))
    out.append(case("quickgelu_alpha1_f32", "QuickGelu", [3, 40], dict(alpha=1.0), seed=len(out), scale=0.05, **gs))
    return out


def multi_head_attention_cases():
    """com.microsoft MultiHeadAttention: ORT's flash path (no mask, bias, past or extra outputs)
    with one key block, several (this machine's L2 size sets them: the data records it) and a
    last block of one query row; the plain path with each key mask, causal rows, attention bias,
    past and present, key and value given per head ([B, N, L, H]). The qk output is tested in
    tests/ops/contrib_ops_test.cc: ORT cannot infer its type here, where it is no graph output."""
    out = []
    rng = np.random.default_rng(73)
    ms = dict(dequantize=True, quantize=False, domain="com.microsoft", out_type=TensorProto.FLOAT, scale=0.037)
    i32 = np.int32

    def kv(*shape, std=1.0):
        return rng.normal(0, std, shape).astype(F32)

    def mha(name, b, s, d, attrs, consts, extra_outputs=0):
        out.append(case(name, "MultiHeadAttention", [b, s, d], attrs, consts, seed=len(out),
                        extra_outputs=extra_outputs, **ms))

    h2 = dict(num_heads=2)
    mha("mha_flash", 2, 5, 16, h2, [kv(2, 7, 16), kv(2, 7, 16)])
    mha("mha_flash_bias", 2, 5, 16, h2, [kv(2, 7, 16), kv(2, 7, 24), kv(56, std=0.3)])
    mha("mha_flash_last_block_one_row", 1, 33, 16, dict(num_heads=1), [kv(1, 40, 16), kv(1, 40, 16)])
    mha("mha_flash_two_key_blocks", 1, 3, 256, dict(num_heads=1), [kv(1, 140, 256, std=0.1), kv(1, 140, 256)])
    mha("mha_flash_one_query", 2, 1, 16, h2, [kv(2, 9, 16), kv(2, 9, 16)])
    mha("mha_mask_keys", 2, 5, 16, h2, [kv(2, 7, 16), kv(2, 7, 16), None,
                                         (rng.uniform(size=(2, 7)) < 0.7).astype(i32)])
    mha("mha_mask_key_end", 2, 5, 16, h2, [kv(2, 7, 16), kv(2, 7, 16), None, np.array([3, 7], i32)])
    mha("mha_mask_3d", 2, 5, 16, h2, [kv(2, 7, 16), kv(2, 7, 16), None,
                                       (rng.uniform(size=(2, 5, 7)) < 0.7).astype(i32)])
    mha("mha_unidirectional_cross", 2, 5, 16, dict(num_heads=2, unidirectional=1), [kv(2, 7, 16), kv(2, 7, 16)])
    mha("mha_attention_bias", 2, 5, 16, h2, [kv(2, 7, 16), kv(2, 7, 16), kv(48, std=0.3), None, kv(1, 2, 5, 7)])
    mha("mha_past_present", 2, 3, 16, dict(num_heads=2, unidirectional=1),
        [kv(2, 3, 16), kv(2, 3, 16), kv(48, std=0.3), None, None, kv(2, 2, 4, 8), kv(2, 2, 4, 8)], extra_outputs=2)
    mha("mha_kv_per_head", 2, 5, 16, h2, [kv(2, 2, 7, 8), kv(2, 2, 7, 8), kv(48, std=0.3)])
    mha("mha_scale_rows_longer_than_16", 1, 20, 32, dict(num_heads=4, scale=0.2),
        [kv(1, 37, 32), kv(1, 37, 32), None, np.array([30], i32)])
    return out


def quantizer_and_cast_cases():
    """QuantizeLinear / DequantizeLinear themselves (per axis, opset 13), Cast out of the
    quantized domain, and power-of-two scales for the ops where ties are most common."""
    out = []
    x = [1, 3, 11, 13]
    out.append(case("dequantizelinear_per_axis", "DequantizeLinear", x, dict(axis=1),
                    consts=[f32(0.1, 0.25, 0.037), np.array([128, 0, 255], np.uint8)], dequantize=False,
                    quantize=False, out_type=TensorProto.FLOAT))
    out.append(case("quantizelinear_per_axis", "QuantizeLinear", x, dict(axis=1),
                    consts=[f32(0.3, 0.0625, 0.17), np.array([0, 128, 250], np.uint8)], quantize=False,
                    out_type=TensorProto.UINT8))
    out.append(case("quantizelinear_per_axis_s8", "QuantizeLinear", x, dict(axis=-1),
                    consts=[np.linspace(0.05, 0.4, 13).astype(F32), np.arange(-6, 7).astype(np.int8)],
                    quantize=False, out_type=TensorProto.INT8, qtype=np.int8, zp=-128))
    for to, name in ((TensorProto.INT32, "int32"), (TensorProto.FLOAT16, "float16"), (TensorProto.BOOL, "bool"),
                     (TensorProto.DOUBLE, "double")):
        out.append(case(f"cast_to_{name}", "Cast", x, dict(to=to), quantize=False, out_type=to, scale=0.35))
    for sc in (0.125, 0.5):
        tag = str(sc).replace(".", "p")
        out.append(case(f"resize_linear_half_pixel_1p5_scale{tag}", "Resize", x, {"mode": "linear"},
                        [None, f32(1, 1, 1.5, 1.5)], scale=sc))
        out.append(case(f"resize_cubic_0p6x1p7_scale{tag}", "Resize", x, {"mode": "cubic"},
                        [None, f32(1, 1, 0.6, 1.7)], scale=sc))
        out.append(case(f"avgpool_k3p1_scale{tag}", "AveragePool", x, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                        scale=sc))
        out.append(case(f"avgpool_k2s2_scale{tag}", "AveragePool", x, dict(kernel_shape=[2, 2], strides=[2, 2]),
                        scale=sc))
    out.append(case("avgpool_valid_k3s2", "AveragePool", x, dict(kernel_shape=[3, 3], strides=[2, 2],
                                                                auto_pad="VALID")))
    return out


def all_cases():
    cases = (resize_cases() + average_pool_cases() + lp_pool_cases() + other_cases() + more_float_op_cases() + new_op_cases()
             + integer_op_cases() + contrib_conv_where_cases() + fused_matmul_cases() + layer_norm_family_cases()
             + rotary_cases() + embed_layer_norm_cases() + attention_cases()
             + multi_head_attention_cases()
             + quantizer_and_cast_cases())
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases
