#!/usr/bin/python3
"""Writes the ONNX models of tests/cli_onnx.sh into DIR (argument 1), with
inputs and numpy-computed expected outputs, one value per line:
  cnn.onnx       x[N,1,6,6] -> Conv 3x3 pad 1 (+B) -> Relu -> MaxPool 2 ->
                 Flatten -> Gemm(transB) -> Clip; cnn_x.txt, cnn_y.txt
  two.onnx       inputs a[2,3], b[2,3] -> Add -> Mul(a) and Sub; two_*.txt
  cubic.onnx     Resize mode=cubic, node 'Resize_12' (opset 13): unsupported
Needs python3-onnx and python3-numpy (Debian)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def save(name, arr):
    with open(os.path.join(out, name), "w") as f:
        for v in np.asarray(arr).reshape(-1):
            f.write("%.9g\n" % v)


def model(nodes, inputs, outputs, inits, opset):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


# --- cnn ---
w = rng.integers(-4, 5, size=(2, 1, 3, 3)).astype(np.float32) / 4
b = np.array([0.25, -0.5], np.float32)
fc = rng.integers(-4, 5, size=(3, 18)).astype(np.float32) / 8
x = rng.integers(-8, 9, size=(1, 1, 6, 6)).astype(np.float32) / 4
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
c = np.zeros((1, 2, 6, 6), np.float64)
for o in range(2):
    for i in range(6):
        for j in range(6):
            c[0, o, i, j] = (xp[0, 0, i:i + 3, j:j + 3] * w[o, 0]).sum() + b[o]
r = np.maximum(c, 0)
p = r.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5))
y = np.clip(p.reshape(1, 18) @ fc.T.astype(np.float64), -2, 2)
nodes = [
    helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"], name="relu"),
    helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Flatten", ["p"], ["f"], name="flat"),
    helper.make_node("Gemm", ["f", "fc"], ["g"], name="fc", transB=1),
    helper.make_node("Clip", ["g", "lo", "hi"], ["y"], name="clip"),
]
inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"), numpy_helper.from_array(fc, "fc"),
         numpy_helper.from_array(np.array(-2, np.float32), "lo"), numpy_helper.from_array(np.array(2, np.float32), "hi")]
m = model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 6, 6])],
          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])], inits, 13)
onnx.save(m, os.path.join(out, "cnn.onnx"))
save("cnn_x.txt", x)
save("cnn_y.txt", y)

# --- two inputs, two outputs ---
a = rng.integers(-9, 10, size=(2, 3)).astype(np.float32) / 2
bb = rng.integers(-9, 10, size=(2, 3)).astype(np.float32) / 2
nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
         helper.make_node("Mul", ["s", "a"], ["m"], name="mul"),
         helper.make_node("Sub", ["a", "b"], ["d"], name="sub")]
m = model(nodes, [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
                  helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
          [helper.make_tensor_value_info("m", TensorProto.FLOAT, [2, 3]),
           helper.make_tensor_value_info("d", TensorProto.FLOAT, [2, 3])], [], 13)
onnx.save(m, os.path.join(out, "two.onnx"))
save("two_a.txt", a)
save("two_b.txt", bb)
save("two_m.txt", (a + bb) * a)
save("two_d.txt", a - bb)

# --- unsupported ---
scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="Resize_12", mode="cubic")]
m = model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2])],
          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 4])], [scales], 13)
onnx.save(m, os.path.join(out, "cubic.onnx"))
