#!/usr/bin/env python3
"""Generate the test fixtures under Tests/Fixtures from ONNX Runtime and rembg (re-runnable, deterministic).

    Tools/make_fixtures.sh            # sets up Tools/.venv, then runs this script

Writes:
- ops/{conv,maxpool,resize,sigmoid}.safetensors — single-op ONNX graphs run by ONNX Runtime: inputs,
  weights and outputs as `caseN.*` tensors, each case's parameters in the metadata (JSON).
- ops/conv-general.safetensors — Conv with stride 2, SAME_UPPER and explicit asymmetric padding, groups
  (depthwise 3×3 and 5×5, grouped with a channel multiplier), 1×1 strided; some followed by Clip(0, 6) (ReLU6).
- ops/classifier.safetensors — GlobalAveragePool, Gemm (transB = 1, as nn.Linear exports) and Softmax.

    Tools/make_fixtures.sh --ops conv-general,classifier   # only these op fixtures (no photos, no rembg)
- photos/{astronaut.png,chelsea.png,coffee.png,rocket.jpg,coins.png} — scikit-image's public-domain sample
  photos (coins: a grayscale PNG with many separate objects).
- photos/NAME.input.npy — rembg's preprocessed tensor (1×3×320×320), NAME.d0.npy — ONNX Runtime's d0 for it
  on u2netp, NAME.rembg-mask.png — `rembg.remove(photo, only_mask=True)`.
- decode/ — small variants of one photo as phones, cameras and editors write them: EXIF orientations 1…8 (JPEG
  APP1 and PNG eXIf), progressive, grayscale and CMYK JPEG (cmyk-pillow.png: Pillow's RGB of it), PNG 8/16-bit
  gray/RGB, palette (with tRNS), RGBA, gray+alpha, Adam7-interlaced; upright.png is what each must decode to.
- photos/{astronaut,coffee}.u2net-d0.npy — ONNX Runtime's d0 for the full u2net model, when its ONNX file is
  given (Tools/make_fixtures.sh passes ~/.cache/swiftseg/u2net.onnx if `fetch_weights.sh u2net --keep-onnx` ran).
- photos/coffee-crop.input.npy / .d0.npy — a 1×3×203×157 crop, run through the same graph with symbolic
  height/width, so the odd sizes (ceil-mode pooling, non-integer upsampling) are checked too.
"""

import json
import os
import shutil
import struct
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures")
RNG = np.random.default_rng(20261129)


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    offset = 0
    for name, a in tensors:
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((-(8 + len(text))) % 64)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for _, a in tensors:
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())


def run_graph(nodes, inputs, initializers, output_shape_rank=4):
    graph = helper.make_graph(
        nodes, "op",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[onnx.numpy_helper.from_array(a, n) for n, a in initializers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return sess.run(["y"], inputs)[0]


def conv_cases():
    # (cin, cout, h, w, kernel, dilation): every dilation U²-Net uses, 1- and 3-channel edges, odd sizes,
    # images smaller than the dilation.
    shapes = [(3, 8, 17, 13, 3, 1), (1, 1, 5, 7, 3, 1), (16, 16, 20, 20, 3, 2), (16, 16, 10, 10, 3, 4),
              (16, 16, 10, 10, 3, 8), (32, 16, 9, 11, 3, 1), (16, 64, 7, 5, 3, 2), (5, 3, 3, 3, 3, 8),
              (6, 1, 12, 9, 1, 1), (64, 1, 11, 14, 3, 1), (2, 5, 1, 1, 3, 4)]
    tensors, meta = [], {}
    for i, (cin, cout, h, w, k, d) in enumerate(shapes):
        x = RNG.standard_normal((1, cin, h, w)).astype(np.float32)
        wt = (RNG.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
        b = RNG.standard_normal(cout).astype(np.float32)
        pad = d * (k - 1) // 2
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k], dilations=[d, d],
                                pads=[pad] * 4, strides=[1, 1])
        y = run_graph([node], {"x": x}, {"w": wt, "b": b})
        tensors += [(f"case{i}.input", x), (f"case{i}.weight", wt), (f"case{i}.bias", b), (f"case{i}.output", y)]
        meta[f"case{i}"] = json.dumps({"kernel": k, "dilation": d})
    meta["cases"] = str(len(shapes))
    return tensors, meta


def conv_general_cases():
    # (cin, cout, h, w, kernel, stride, dilation, pads top/left/bottom/right or "SAME", groups, relu6): the
    # convolutions of MobileNetV2 and EfficientNet-Lite on even and odd sizes. Its own generator, so adding
    # cases leaves the other fixtures' data as it was.
    rng = np.random.default_rng(20261201)
    shapes = [(3, 32, 16, 14, 3, 2, 1, "SAME", 1, True), (3, 8, 15, 13, 3, 2, 1, "SAME", 1, False),
              (8, 8, 16, 16, 3, 1, 1, (1, 1, 1, 1), 8, True), (8, 8, 16, 12, 3, 2, 1, "SAME", 8, True),
              (6, 6, 11, 9, 5, 2, 1, "SAME", 6, False), (6, 6, 12, 10, 5, 1, 1, (2, 2, 2, 2), 6, True),
              (6, 6, 12, 10, 5, 2, 1, "SAME", 6, True), (8, 16, 9, 7, 3, 1, 1, (0, 1, 2, 1), 2, False),
              (4, 8, 7, 7, 1, 2, 1, (0, 0, 0, 0), 1, False), (4, 12, 10, 10, 3, 1, 2, (2, 2, 2, 2), 4, True),
              (16, 24, 8, 8, 1, 1, 1, (0, 0, 0, 0), 1, False), (5, 7, 4, 3, 3, 3, 1, (1, 0, 2, 1), 1, True),
              (32, 32, 1, 1, 3, 1, 1, (1, 1, 1, 1), 32, True)]
    tensors, meta = [], {}
    for i, (cin, cout, h, w, k, stride, d, pads, g, relu6) in enumerate(shapes):
        x = rng.standard_normal((1, cin, h, w)).astype(np.float32)
        wt = (rng.standard_normal((cout, cin // g, k, k)) / np.sqrt(cin // g * k * k)).astype(np.float32)
        b = rng.standard_normal(cout).astype(np.float32)
        attrs = dict(kernel_shape=[k, k], dilations=[d, d], strides=[stride, stride], group=g)
        if pads == "SAME":
            attrs["auto_pad"] = "SAME_UPPER"
        else:
            attrs["pads"] = [pads[0], pads[1], pads[2], pads[3]]
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c" if relu6 else "y"], **attrs)]
        inits = {"w": wt, "b": b}
        if relu6:
            nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
            inits.update(lo=np.array(0, np.float32), hi=np.array(6, np.float32))
        y = run_graph(nodes, {"x": x}, inits)
        tensors += [(f"case{i}.input", x), (f"case{i}.weight", wt), (f"case{i}.bias", b), (f"case{i}.output", y)]
        same = pads == "SAME"
        t, l, bt, r = (0, 0, 0, 0) if same else pads
        meta[f"case{i}"] = json.dumps({"kernel": k, "stride": stride, "dilation": d, "same": int(same), "top": t,
                                       "left": l, "bottom": bt, "right": r, "groups": g, "relu6": int(relu6)})
    meta["cases"] = str(len(shapes))
    return tensors, meta


def classifier_cases():
    # case0: GlobalAveragePool; case1: Gemm (transB = 1) on 1×N; case2: Softmax over 1000 logits.
    rng = np.random.default_rng(20261202)
    x = rng.standard_normal((1, 24, 7, 9)).astype(np.float32)
    pooled = run_graph([helper.make_node("GlobalAveragePool", ["x"], ["y"])], {"x": x}, {})
    f = rng.standard_normal((1, 40)).astype(np.float32)
    wt = (rng.standard_normal((30, 40)) / np.sqrt(40)).astype(np.float32)
    b = rng.standard_normal(30).astype(np.float32)
    fc = run_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], {"x": f}, {"w": wt, "b": b})
    logits = (rng.standard_normal((1, 1000)) * 4).astype(np.float32)
    probs = run_graph([helper.make_node("Softmax", ["x"], ["y"], axis=1)], {"x": logits}, {})
    tensors = [("case0.input", x), ("case0.output", pooled), ("case1.input", f), ("case1.weight", wt),
               ("case1.bias", b), ("case1.output", fc), ("case2.input", logits), ("case2.output", probs)]
    return tensors, {"cases": "3", "case0": "GlobalAveragePool", "case1": "Gemm", "case2": "Softmax"}


OP_FIXTURES = [("conv", lambda: conv_cases()), ("maxpool", lambda: maxpool_cases()),
               ("resize", lambda: resize_cases()), ("sigmoid", lambda: sigmoid_cases()),
               ("conv-general", lambda: conv_general_cases()), ("classifier", lambda: classifier_cases())]


def maxpool_cases():
    shapes = [(3, 8, 8), (2, 7, 9), (1, 1, 1), (4, 5, 2), (16, 21, 33), (1, 40, 3)]
    tensors, meta = [], {}
    for i, (c, h, w) in enumerate(shapes):
        x = RNG.standard_normal((1, c, h, w)).astype(np.float32)
        node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
        y = run_graph([node], {"x": x}, {})
        tensors += [(f"case{i}.input", x), (f"case{i}.output", y)]
    meta["cases"] = str(len(shapes))
    return tensors, meta


def resize_cases():
    # (c, h, w, out_h, out_w): U²-Net's 2× steps, ceil-mode odd targets, non-integer ratios, 1-pixel inputs,
    # and the side-output upsampling (e.g. 10 → 320).
    shapes = [(2, 5, 5, 10, 10), (3, 4, 6, 7, 11), (1, 1, 1, 3, 4), (2, 10, 10, 320, 320), (1, 3, 7, 5, 13),
              (4, 13, 9, 25, 17), (1, 6, 6, 6, 6)]
    tensors, meta = [], {}
    for i, (c, h, w, oh, ow) in enumerate(shapes):
        x = RNG.standard_normal((1, c, h, w)).astype(np.float32)
        sizes = np.array([1, c, oh, ow], dtype=np.int64)
        graph_inputs = {"x": x}
        node = helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], mode="linear",
                                coordinate_transformation_mode="pytorch_half_pixel")
        g = helper.make_graph(
            [node], "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            initializer=[onnx.numpy_helper.from_array(np.array([], np.float32), "roi"),
                         onnx.numpy_helper.from_array(np.array([], np.float32), "scales"),
                         onnx.numpy_helper.from_array(sizes, "sizes")])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
        m.ir_version = 6
        y = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(["y"], graph_inputs)[0]
        tensors += [(f"case{i}.input", x), (f"case{i}.output", y)]
    meta["cases"] = str(len(shapes))
    return tensors, meta


def sigmoid_cases():
    x = np.concatenate([np.linspace(-30, 30, 601), RNG.standard_normal(99) * 4]).astype(np.float32)
    x = x.reshape(1, 1, 7, 100)
    y = run_graph([helper.make_node("Sigmoid", ["x"], ["y"])], {"x": x}, {})
    return [("case0.input", x), ("case0.output", y)], {"cases": "1"}


def photo_fixtures(onnx_path):
    import skimage
    from rembg import new_session, remove

    data_dir = os.path.join(os.path.dirname(skimage.__file__), "data")
    photos = os.path.join(OUT, "photos")
    os.makedirs(photos, exist_ok=True)
    os.environ["U2NET_HOME"] = os.path.dirname(onnx_path)
    session = new_session("u2netp")
    ort_session = session.inner_session
    for file in ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "coins.png"]:
        name = os.path.splitext(file)[0]
        shutil.copyfile(os.path.join(data_dir, file), os.path.join(photos, file))
        img = Image.open(os.path.join(photos, file))
        feed = session.normalize(img, (0.485, 0.456, 0.406), (0.229, 0.224, 0.225), (320, 320))
        x = next(iter(feed.values()))
        d0 = ort_session.run(None, feed)[0]
        np.save(os.path.join(photos, f"{name}.input.npy"), x)
        np.save(os.path.join(photos, f"{name}.d0.npy"), d0)
        mask = remove(img, session=session, only_mask=True)
        mask.save(os.path.join(photos, f"{name}.rembg-mask.png"))
        print(f"{file}: {img.size} {img.mode}, d0 range {d0.min():.4f}..{d0.max():.4f}")

    # Odd-size crop through a copy of the graph with symbolic height/width.
    model = onnx.load(onnx_path)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[2].dim_param, dims[3].dim_param = "height", "width"
    for out in model.graph.output:
        del out.type.tensor_type.shape.dim[:]
    dynamic = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    coffee = np.load(os.path.join(photos, "coffee.input.npy"))
    crop = np.ascontiguousarray(coffee[:, :, 61:264, 97:254])
    np.save(os.path.join(photos, "coffee-crop.input.npy"), crop)
    np.save(os.path.join(photos, "coffee-crop.d0.npy"), dynamic.run(None, {dynamic.get_inputs()[0].name: crop})[0])


def png_chunk(kind, data):
    import zlib
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def interlaced_png(rgb):
    """An Adam7-interlaced RGB PNG (Pillow cannot write one)."""
    import zlib
    h, w, _ = rgb.shape
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b""
    for x0, y0, dx, dy in passes:
        sub = rgb[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        for row in sub:
            raw += b"\x00" + row.tobytes()
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 1))
            + png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def decode_fixtures():
    from PIL import ImageOps
    out = os.path.join(OUT, "decode")
    os.makedirs(out, exist_ok=True)
    photo = Image.open(os.path.join(HERE, "..", "Tests", "Fixtures", "photos", "chelsea.png")).convert("RGB")
    upright = photo.resize((60, 40), Image.LANCZOS)   # wider than tall, so rotations are visible
    upright.save(os.path.join(out, "upright.png"))
    inverse = {1: None, 2: Image.FLIP_LEFT_RIGHT, 3: Image.ROTATE_180, 4: Image.FLIP_TOP_BOTTOM,
               5: Image.TRANSPOSE, 6: Image.ROTATE_90, 7: Image.TRANSVERSE, 8: Image.ROTATE_270}
    for o, method in inverse.items():
        stored = upright if method is None else upright.transpose(method)
        exif = Image.Exif()
        exif[0x0112] = o
        stored.save(os.path.join(out, f"orientation-{o}.png"), exif=exif.tobytes())
        stored.save(os.path.join(out, f"orientation-{o}.jpg"), exif=exif.tobytes(), quality=95)
        check = ImageOps.exif_transpose(Image.open(os.path.join(out, f"orientation-{o}.png")))
        assert np.array_equal(np.array(check), np.array(upright)), o
    upright.save(os.path.join(out, "baseline.jpg"), quality=95)
    upright.save(os.path.join(out, "progressive.jpg"), quality=95, progressive=True)
    upright.convert("L").save(os.path.join(out, "gray.jpg"), quality=95)
    upright.convert("CMYK").save(os.path.join(out, "cmyk.jpg"), quality=95)
    # what Pillow (so rembg) makes of it: Adobe's inverted CMYK, then its CMYK → RGB
    Image.open(os.path.join(out, "cmyk.jpg")).convert("RGB").save(os.path.join(out, "cmyk-pillow.png"))
    upright.convert("L").save(os.path.join(out, "gray8.png"))
    a = np.array(upright)
    Image.fromarray(np.array(upright.convert("L")).astype(np.uint16) * 257).save(os.path.join(out, "gray16.png"))
    rgb16 = a.astype(">u2") * 257
    raw16 = b"".join(b"\x00" + row.tobytes() for row in rgb16)
    import zlib
    with open(os.path.join(out, "rgb16.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 60, 40, 16, 2, 0, 0, 0))
                + png_chunk(b"IDAT", zlib.compress(raw16, 9)) + png_chunk(b"IEND", b""))
    upright.quantize(256, dither=Image.Dither.NONE).save(os.path.join(out, "palette.png"))
    pal = upright.quantize(256, dither=Image.Dither.NONE)
    pal.info["transparency"] = 0
    pal.save(os.path.join(out, "palette-trns.png"), transparency=0)
    rgba = upright.copy()
    rgba.putalpha(Image.linear_gradient("L").resize((60, 40)))
    rgba.save(os.path.join(out, "rgba.png"))
    rgba.convert("LA").save(os.path.join(out, "gray-alpha.png"))
    with open(os.path.join(out, "interlaced.png"), "wb") as f:
        f.write(interlaced_png(a))
    assert np.array_equal(np.array(Image.open(os.path.join(out, "interlaced.png")).convert("RGB")), a)


def u2net_fixtures(onnx_path):
    """d0 of the full u2net model (ONNX Runtime) on the astronaut and coffee tensors, for the u2net parity test."""
    photos = os.path.join(OUT, "photos")
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    for name in ["astronaut", "coffee"]:
        x = np.load(os.path.join(photos, f"{name}.input.npy"))
        np.save(os.path.join(photos, f"{name}.u2net-d0.npy"), sess.run(None, {sess.get_inputs()[0].name: x})[0])


def write_op_fixtures(names):
    os.makedirs(os.path.join(OUT, "ops"), exist_ok=True)
    for name, make in OP_FIXTURES:
        if name not in names:
            continue
        tensors, meta = make()
        meta["generator"] = f"Tools/make_fixtures.py, onnxruntime {ort.__version__}"
        write_safetensors(os.path.join(OUT, "ops", f"{name}.safetensors"), tensors, meta)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--ops":
        names = sys.argv[2].split(",")
        unknown = set(names) - {n for n, _ in OP_FIXTURES}
        if unknown:
            sys.exit(f"make_fixtures: unknown op fixtures {sorted(unknown)} (known: {[n for n, _ in OP_FIXTURES]})")
        write_op_fixtures(names)
        return
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: make_fixtures.py PATH/TO/u2netp.onnx [PATH/TO/u2net.onnx] | --ops NAME,…")
    write_op_fixtures([n for n, _ in OP_FIXTURES])
    photo_fixtures(sys.argv[1])
    decode_fixtures()
    if len(sys.argv) == 3:
        u2net_fixtures(sys.argv[2])


if __name__ == "__main__":
    main()
