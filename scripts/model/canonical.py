"""An ONNX model in a canonical form: the same graph gives the same bytes however the converter named it.

tf2onnx names the nodes and constants it makes from a counter and merges equal constants in an order that
changes from run to run, so two conversions of the same model differ in bytes but not in arithmetic. Naming
every tensor by what computes it (a hash over the operator, its attributes and its inputs' names), merging
equal constants, and ordering the nodes topologically by those names makes the bytes repeatable, so that a
converted model can be pinned and checked by SHA-256.
"""

import hashlib
import heapq


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()[:20]


def canonicalise(model) -> None:
    """Rewrites the model in place; the graph's inputs and outputs keep their names."""
    graph = model.graph
    kept = {value.name for value in graph.input} | {value.name for value in graph.output}
    names = {"": ""}
    for name in kept:
        names[name] = name
    constants = {}
    for initializer in graph.initializer:
        content = type(initializer)()
        content.CopyFrom(initializer)
        content.name = ""
        key = "const_" + _digest(content.SerializeToString())
        names[initializer.name] = initializer.name if initializer.name in kept else key
        constants.setdefault(names[initializer.name], content)
    nodes = list(graph.node)
    producers = {output: index for index, node in enumerate(nodes) for output in node.output}
    waiting = [sum(1 for name in node.input if name in producers) for node in nodes]
    consumers = {}
    for index, node in enumerate(nodes):
        for name in node.input:
            if name in producers:
                consumers.setdefault(producers[name], []).append(index)
    keys = {}
    ready = []

    def key_of(index: int) -> str:
        node = nodes[index]
        attributes = sorted(attribute.SerializeToString() for attribute in node.attribute)
        inputs = [names[name].encode() for name in node.input]
        return _digest(node.op_type.encode(), node.domain.encode(), str(len(node.output)).encode(), *attributes,
                       b"|", *inputs)

    for index in range(len(nodes)):
        if waiting[index] == 0:
            keys[index] = key_of(index)
            heapq.heappush(ready, (keys[index], index))
    order, seen = [], {}
    while ready:
        key, index = heapq.heappop(ready)
        node = nodes[index]
        # Equal keys are equal computations, so which copy gets which suffix does not change the model.
        seen[key] = seen.get(key, 0) + 1
        unique = key if seen[key] == 1 else f"{key}_{seen[key]}"
        for position, output in enumerate(node.output):
            if output and output not in kept:
                names[output] = f"t_{unique}_{position}"
        order.append((index, f"{node.op_type}_{unique}"))
        for consumer in consumers.get(index, []):
            waiting[consumer] -= 1
            if waiting[consumer] == 0:
                keys[consumer] = key_of(consumer)
                heapq.heappush(ready, (keys[consumer], consumer))
    if len(order) != len(nodes):
        raise ValueError("the graph has a cycle or an input nothing produces")
    rewritten = []
    for index, name in order:
        node = type(nodes[index])()
        node.CopyFrom(nodes[index])
        node.name = name
        node.doc_string = ""
        node.input[:] = [names[value] for value in node.input]
        node.output[:] = [names.get(value, value) for value in node.output]
        rewritten.append(node)
    del graph.node[:]
    graph.node.extend(rewritten)
    del graph.initializer[:]
    for name in sorted(constants):
        constant = graph.initializer.add()
        constant.CopyFrom(constants[name])
        constant.name = name
    del graph.value_info[:]
    graph.doc_string = ""
