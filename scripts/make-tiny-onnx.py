#!/usr/bin/env python3
"""Writes the tiny ONNX model of the ONNX Runtime wrapper's tests: input x [N, 4] float32, MatMul by the 4x3
matrix below, output y [N, 3]; integers, so every product the tests check is exact in float32.

Run by `make tiny-onnx` in a virtual environment holding PyPI's onnx (its version pinned there).
usage: make-tiny-onnx.py OUTPUT
"""
import sys

import onnx
from onnx import TensorProto, helper

MATRIX = [
    [1.0, 2.0, 3.0],
    [4.0, 5.0, 6.0],
    [7.0, 8.0, 9.0],
    [10.0, 11.0, 12.0],
]


def main(output: str) -> None:
    weights = helper.make_tensor("w", TensorProto.FLOAT, [4, 3], [v for row in MATRIX for v in row])
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "tiny-matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        initializer=[weights],
    )
    # Opset 17 and IR 8, as the BirdNET conversion: what ONNX Runtime has read for years.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, output)


if __name__ == "__main__":
    main(sys.argv[1])
