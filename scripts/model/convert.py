"""Convert BirdNET v2.4 (TensorFlow SavedModel, and the TFLite meta-model) to ONNX, and check the result.

Runs inside the throwaway conversion environment (tensorflow-cpu, tf2onnx, onnx, onnxruntime, ai-edge-litert);
`make-model.py` builds that environment and calls this script. It never downloads anything.

tf2onnx only converts an RFFT whose magnitude is taken, but BirdNET's two spectrogram layers take its real
part (a complex-to-float cast). The real part of a DFT is the frames times a cosine matrix, which is exact, so
each RFFT becomes a matrix product with that matrix and each cast an identity before conversion. Each
spectrogram's mel filterbank then weighs only a band of the DFT's bins (its lowest and highest frequencies), so
the cosine matrix keeps only those columns and the filterbank those rows: the bins dropped were multiplied by
zero, and computing them was most of the model's arithmetic. The script then refuses a result whose logits stray
from the original graph's.
"""

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from canonical import canonicalise

# The conversion changes the arithmetic's order only, so its logits stay this close to the original graph's.
GRAPH_TOLERANCE = 1e-4
# Against the TFLite model (another runtime and kernels) on the same samples.
TFLITE_TOLERANCE = 1e-2
META_TOLERANCE = 1e-4
OPSET = 17
SEGMENT = 144_000


def check_audio(seed: int = 54) -> np.ndarray:
    """Three deterministic segments: white noise, a frequency sweep and a warbling tone over noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(SEGMENT, dtype=np.float64) / 48_000.0
    noise = rng.normal(0.0, 0.05, SEGMENT)
    sweep = 0.4 * np.sin(2 * math.pi * (1_000 * t + 1_000 * t * t)) + noise
    warble = 0.3 * np.sin(2 * math.pi * 3_500 * t + 8 * np.sin(2 * math.pi * 12 * t)) * (np.sin(2 * math.pi * t) > 0)
    return np.stack([rng.normal(0.0, 0.2, SEGMENT), sweep, warble + noise]).astype(np.float32)


def frozen_graph(saved_model: Path):
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = tf.saved_model.load(str(saved_model))
    function = convert_variables_to_constants_v2(model.signatures["basic"])
    return function


def rewrite_rfft(function):
    """The frozen graph with every RFFT (real part taken) replaced by a product with a cosine matrix."""
    import tensorflow as tf

    graph_def = function.graph.as_graph_def()
    nodes = {node.name: node for node in graph_def.node}
    rewritten = []
    for node in list(graph_def.node):
        if node.op != "RFFT":
            continue
        frames, length_name = node.input[0], node.input[1]
        length_node = nodes[length_name.split(":")[0]]
        fft_length = int(tf.make_ndarray(length_node.attr["value"].tensor).reshape(-1)[0])
        frame_length = function.graph.get_tensor_by_name(frames if ":" in frames else frames + ":0").shape[-1]
        if frame_length is None:
            raise SystemExit(f"convert: {node.name}: the frame length is not static; cannot rewrite the RFFT")
        consumers = [n for n in graph_def.node if any(i.split(":")[0] == node.name for i in n.input)]
        float32 = tf.float32.as_datatype_enum
        if not consumers or any(n.op != "Cast" or n.attr["DstT"].type != float32 for n in consumers):
            raise SystemExit(f"convert: {node.name}: expected only complex-to-float casts after the RFFT")
        # RFFT zero-pads frames shorter than fft_length and crops longer ones: rows past it are zero.
        n = np.arange(frame_length)[:, None]
        k = np.arange(fft_length // 2 + 1)[None, :]
        cosine = np.where(n < fft_length, np.cos(2 * np.pi * ((n * k) % fft_length) / fft_length), 0.0)
        matrix = graph_def.node.add()
        matrix.name = node.name + "/cosine"
        matrix.op = "Const"
        matrix.attr["dtype"].type = float32
        matrix.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(cosine.astype(np.float32)))
        node.op = "BatchMatMulV2"
        del node.input[:]
        node.input.extend([frames, matrix.name])
        node.ClearField("attr")
        node.attr["T"].type = float32
        node.attr["adj_x"].b = False
        node.attr["adj_y"].b = False
        for cast in consumers:
            cast.op = "Identity"
            cast.ClearField("attr")
            cast.attr["T"].type = float32
        rewritten.append((node.name, frame_length, fft_length))
    if len(rewritten) != 2:
        raise SystemExit(f"convert: expected BirdNET's two spectrogram RFFTs, found {len(rewritten)}")
    return graph_def, rewritten


def prune_unweighed_bins(model) -> list:
    """Cuts each cosine matrix to the DFT bins its mel filterbank weighs, and the filterbank to the same rows.

    The converted graph computes `reshape(frames @ cosine, [-1, bins]) @ mel`; the other use of the product is its
    shape's first two dimensions (batch and frames), which the cut leaves alone.
    """
    from onnx import numpy_helper

    graph = model.graph
    initializers = {item.name: item for item in graph.initializer}
    users = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    pruned = []
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in initializers:
            continue
        cosine = numpy_helper.to_array(initializers[node.input[1]])
        if cosine.ndim != 2 or cosine.shape[1] != cosine.shape[0] // 2 + 1:
            continue
        after = users.get(node.output[0], [])
        reshapes = [user for user in after if user.op_type == "Reshape"]
        if len(reshapes) != 1 or any(user.op_type not in ("Reshape", "Shape") for user in after):
            raise SystemExit(f"convert: {node.name}: the spectrogram is used other than by its filterbank")
        reshape = reshapes[0]
        filterbanks = users.get(reshape.output[0], [])
        if (len(filterbanks) != 1 or filterbanks[0].op_type != "MatMul"
                or filterbanks[0].input[1] not in initializers or reshape.input[1] not in initializers):
            raise SystemExit(f"convert: {node.name}: no constant mel filterbank after the spectrogram")
        mel_name, shape_name = filterbanks[0].input[1], reshape.input[1]
        mel = numpy_helper.to_array(initializers[mel_name])
        shape = numpy_helper.to_array(initializers[shape_name])
        if list(shape) != [-1, cosine.shape[1]] or mel.shape[0] != cosine.shape[1]:
            raise SystemExit(f"convert: {node.name}: the filterbank does not take the spectrogram's {cosine.shape[1]} bins")
        if any(len(users[name]) != 1 for name in (node.input[1], mel_name, shape_name)):
            raise SystemExit(f"convert: {node.name}: its matrices are shared with other operators")
        weighed = np.nonzero(np.any(mel != 0, axis=1))[0]
        first, last = int(weighed.min()), int(weighed.max()) + 1
        replacements = {node.input[1]: np.ascontiguousarray(cosine[:, first:last]),
                        mel_name: np.ascontiguousarray(mel[first:last, :]),
                        shape_name: np.array([-1, last - first], dtype=shape.dtype)}
        for name, value in replacements.items():
            initializers[name].CopyFrom(numpy_helper.from_array(value, name))
        pruned.append((node.name, cosine.shape[1], first, last))
    if len(pruned) != 2:
        raise SystemExit(f"convert: expected BirdNET's two spectrograms before their filterbanks, found {len(pruned)}")
    return pruned


def run_graph_def(graph_def, input_name: str, output_name: str, samples: np.ndarray) -> np.ndarray:
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return session.run(output_name, {input_name: samples})


def worst(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def require(name: str, difference: float, tolerance: float) -> None:
    status = "ok" if difference <= tolerance else "FAILED"
    print(f"convert: check {name}: largest difference {difference:.3g} (at most {tolerance:g}) {status}")
    if difference > tolerance:
        raise SystemExit(f"convert: {name} differs by {difference:.3g}, more than {tolerance:g}: refusing the model")


def onnx_outputs(path: Path, feeds: dict) -> list:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def tflite_output(path: Path, samples: np.ndarray) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=str(path), num_threads=1)
    detail = interpreter.get_input_details()[0]
    interpreter.resize_tensor_input(detail["index"], list(samples.shape))
    interpreter.allocate_tensors()
    interpreter.set_tensor(detail["index"], samples)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


def convert_classifier(saved_model: Path, tflite: Path, output: Path) -> dict:
    import tf2onnx

    function = frozen_graph(saved_model)
    input_name = function.inputs[0].name
    output_name = function.outputs[0].name
    samples = check_audio()
    original_def = function.graph.as_graph_def()
    original = run_graph_def(original_def, input_name, output_name, samples)
    graph_def, rewritten = rewrite_rfft(function)
    for name, frame_length, fft_length in rewritten:
        print(f"convert: {name}: frames of {frame_length} times a cosine matrix for an RFFT of {fft_length}")
    rewritten_logits = run_graph_def(graph_def, input_name, output_name, samples)
    require("rewritten graph against the original", worst(rewritten_logits, original), GRAPH_TOLERANCE)
    model, _ = tf2onnx.convert.from_graph_def(
        graph_def, input_names=[input_name], output_names=[output_name], opset=OPSET
    )
    # Plain names that chirper-play binds.
    rename_io(model, {input_name: "inputs"}, {output_name: "logits"})
    for name, bins, first, last in prune_unweighed_bins(model):
        print(f"convert: {name}: {last - first} of {bins} DFT bins kept ({first} to {last - 1}), those the filterbank"
              " weighs")
    model.producer_name = "chirper-play scripts/model/convert.py (tf2onnx)"
    canonicalise(model)
    output.write_bytes(model.SerializeToString())
    logits = onnx_outputs(output, {"inputs": samples})[0]
    if logits.shape != (samples.shape[0], 6522):
        raise SystemExit(f"convert: the ONNX model gives shape {logits.shape}, not (N, 6522)")
    graph_difference = worst(logits, original)
    require("ONNX model against the original graph", graph_difference, GRAPH_TOLERANCE)
    tflite_difference = worst(logits, tflite_output(tflite, samples))
    require("ONNX model against the TFLite model", tflite_difference, TFLITE_TOLERANCE)
    return {"against_graph": graph_difference, "against_tflite": tflite_difference, "opset": OPSET}


def rename_io(model, inputs: dict, outputs: dict) -> None:
    """Gives the graph's input and output plain names, everywhere they are used."""
    renames = {**inputs, **outputs}
    for node in model.graph.node:
        node.input[:] = [renames.get(name, name) for name in node.input]
        node.output[:] = [renames.get(name, name) for name in node.output]
    for value in list(model.graph.input) + list(model.graph.output):
        value.name = renames.get(value.name, value.name)


def meta_check_inputs() -> np.ndarray:
    """Places and weeks across the globe, with the whole year (-1) as BirdNET-Analyzer passes it."""
    places = [(42.48, -76.45), (50.83, 12.92), (-33.9, 18.4), (35.7, 139.7), (-3.1, -60.0), (64.1, -21.9)]
    weeks = [1, 13, 26, 40, 48, -1]
    return np.array([(lat, lon, week) for lat, lon in places for week in weeks], dtype=np.float32)


def convert_meta(tflite: Path, output: Path) -> dict:
    import tf2onnx

    model, _ = tf2onnx.convert.from_tflite(str(tflite), opset=OPSET)
    rename_io(model, {model.graph.input[0].name: "location"}, {model.graph.output[0].name: "probabilities"})
    model.producer_name = "chirper-play scripts/model/convert.py (tf2onnx)"
    canonicalise(model)
    output.write_bytes(model.SerializeToString())
    inputs = meta_check_inputs()
    expected = np.concatenate([tflite_output(tflite, row[None, :]) for row in inputs])
    got = onnx_outputs(output, {"location": inputs})[0]
    if got.shape != (inputs.shape[0], 6522):
        raise SystemExit(f"convert: the ONNX meta-model gives shape {got.shape}, not (N, 6522)")
    difference = worst(got, expected)
    require("ONNX meta-model against the TFLite meta-model", difference, META_TOLERANCE)
    agree = np.mean((got >= 0.03) == (expected >= 0.03))
    print(f"convert: meta-model: {agree:.4%} of species on the same side of the 0.03 threshold")
    return {"against_tflite": difference, "opset": OPSET}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saved-model", type=Path, required=True)
    parser.add_argument("--tflite", type=Path, required=True)
    parser.add_argument("--meta-tflite", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--meta-output", type=Path, required=True)
    parser.add_argument("--report", type=Path, required=True, help="JSON file for the checks' figures")
    arguments = parser.parse_args()
    report = {
        "classifier": convert_classifier(arguments.saved_model, arguments.tflite, arguments.output),
        "meta": convert_meta(arguments.meta_tflite, arguments.meta_output),
    }
    arguments.report.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
