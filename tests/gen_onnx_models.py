#!/usr/bin/python3
"""Writes the integer (quantised) ONNX models of tests/cli_quant.sh into DIR
(argument 1; never the source tree), with seeded weights and integer inputs
(one value per line):

  lenet.onnx      LeNet-5 style, x[1,1,28,28]:
                  Conv 5x5 pad 2 (6) -> requant -> Relu -> MaxPool 2,
                  Conv 5x5 (16) -> requant -> Relu -> MaxPool 2,
                  Transpose(0,2,3,1) -> Reshape [1,400],
                  Gemm(transB=1) 120 -> requant -> Relu, Gemm 84 -> requant
                  -> Relu, Gemm 10 -> Clip(-2^31, 2^31) (the i32 result)
  residual.onnx   x[1,3,16,16]: conv a (requant, Relu), conv b (requant),
                  Add(a, b) -> Clip(-128, 127) -> MaxPool 2, AveragePool 2 of
                  a -> Floor, Concat, conv 1x1 -> Clip(-2^31, 2^31)
  lenet_frac.onnx, lenet_range.onnx, lenet_div3.onnx, lenet_clip.onnx
                  LeNet with one defect each (a weight 0.5 in conv2, a weight
                  200 in fc1, a Div by 3 after conv1, Clip(-128, 100) after
                  conv1's Floor): they must stay float
  lenet_x.txt, residual_x.txt   integer inputs in -128..127

requant is the export pattern Clip(-2^31, 2^31) -> Div(Constant 2^k) ->
Floor -> Clip(-128, 127). Every weight is an integer (i8; biases i32).
Needs python3-onnx and python3-numpy (Debian)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, arr):
    with open(os.path.join(out, name), "w") as f:
        for v in np.asarray(arr).reshape(-1):
            f.write("%d\n" % v)


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def init(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr, np.float32), name))
        return name

    def weight(self, name, shape, lo=-127, hi=127):
        return self.init(name, self.rng.integers(lo, hi + 1, size=shape))

    def node(self, op, inputs, **attrs):
        o = self.name(op)
        self.nodes.append(helper.make_node(op, inputs, [o], name=o, **attrs))
        return o

    def clip(self, x, lo, hi):
        return self.node("Clip", [x, self.init(self.name("lo"), lo), self.init(self.name("hi"), hi)])

    def requant(self, x, k, relu=True, div=None, clip_hi=127.0):
        y = self.clip(x, -2.0 ** 31, 2.0 ** 31)
        c = self.name("k")
        self.nodes.append(helper.make_node("Constant", [], [c], name=c,
                                           value=numpy_helper.from_array(np.array(div or 2.0 ** k, np.float32))))
        y = self.node("Div", [y, c])
        y = self.node("Floor", [y])
        y = self.clip(y, -128.0, clip_hi)
        return self.node("Relu", [y]) if relu else y

    def conv(self, x, name, o, c, k, pad):
        w = self.weight(name + ".weight", (o, c, k, k))
        b = self.weight(name + ".bias", (o,), -2000, 2000)
        return self.node("Conv", [x, w, b], kernel_shape=[k, k], pads=[pad] * 4)

    def gemm(self, x, name, o, i):
        w = self.weight(name + ".weight", (o, i))
        b = self.weight(name + ".bias", (o,), -2000, 2000)
        return self.node("Gemm", [x, w, b], transB=1)

    def save_model(self, fname, x_shape, y, y_shape):
        g = helper.make_graph(self.nodes, fname.split(".")[0], [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, fname))


def lenet(fname, defect=None):
    g = Graph(13)
    y = g.conv("x", "conv1", 6, 1, 5, 2)
    y = g.requant(y, 8, div=3.0 if defect == "div3" else None, clip_hi=100.0 if defect == "clip" else 127.0)
    y = g.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
    y = g.conv(y, "conv2", 16, 6, 5, 0)
    y = g.requant(y, 12)
    y = g.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
    y = g.node("Transpose", [y], perm=[0, 2, 3, 1])
    y = g.node("Reshape", [y, g.init(g.name("shape"), [1, 400])])
    g.inits[-1] = numpy_helper.from_array(np.array([1, 400], np.int64), g.inits[-1].name)
    y = g.requant(g.gemm(y, "fc1", 120, 400), 12)
    y = g.requant(g.gemm(y, "fc2", 84, 120), 11)
    y = g.clip(g.gemm(y, "fc3", 10, 84), -2.0 ** 31, 2.0 ** 31)
    for t in g.inits:   # the defects
        if defect == "frac" and t.name == "conv2.weight":
            a = numpy_helper.to_array(t).copy(); a.flat[7] = 0.5; t.CopyFrom(numpy_helper.from_array(a, t.name))
        if defect == "range" and t.name == "fc1.weight":
            a = numpy_helper.to_array(t).copy(); a.flat[3] = 200; t.CopyFrom(numpy_helper.from_array(a, t.name))
    g.save_model(fname, [1, 1, 28, 28], y, [1, 10])


def residual():
    g = Graph(17)
    a = g.requant(g.conv("x", "conv_a", 8, 3, 3, 1), 9)                  # >= 0
    b = g.requant(g.conv(a, "conv_b", 8, 8, 3, 1), 11, relu=False)       # signed
    s = g.clip(g.node("Add", [a, b]), -128.0, 127.0)
    s = g.node("MaxPool", [s], kernel_shape=[2, 2], strides=[2, 2])
    p = g.node("Floor", [g.node("AveragePool", [a], kernel_shape=[2, 2], strides=[2, 2])])
    y = g.node("Concat", [p, s], axis=1)
    y = g.clip(g.conv(y, "conv_c", 4, 16, 1, 0), -2.0 ** 31, 2.0 ** 31)
    g.save_model("residual.onnx", [1, 3, 16, 16], y, [1, 4, 8, 8])


lenet("lenet.onnx")
for d in ("frac", "range", "div3", "clip"):
    lenet("lenet_%s.onnx" % d, d)
residual()
rng = np.random.default_rng(5)
save("lenet_x.txt", rng.integers(-128, 128, size=(1, 1, 28, 28)))
save("residual_x.txt", rng.integers(-128, 128, size=(1, 3, 16, 16)))
