"""What the Tools/ scripts that build ONNX graphs with seeded random weights share."""

import onnx
from onnx import helper


def finished_model(graph):
    """`graph` as a checked model at opset 13, IR version 7 (what ONNX Runtime and the converter expect)."""
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m
