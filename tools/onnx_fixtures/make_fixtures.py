#!/usr/bin/python3
"""Writes the ONNX test fixtures of tests/data/onnx (kneepoint import onnx) and their PyTorch
parameter counts (params.tsv). Debian's python3-torch 1.13, python3-torchvision 0.14 and
python3-onnx 1.12 (/usr/bin/python3: a pyenv python lacks them). Run from anywhere:
    /usr/bin/python3 tools/onnx_fixtures/make_fixtures.py
Every model is exported with export_params=False (the graph and the weights' shapes, no values),
so the files stay small; opset 17 is the newest that onnx 1.12 knows and the first with
LayerNormalization. Weights are drawn at random before the export: the exporter merges
initializers of equal value (copies made by nn.TransformerEncoder, all-ones norm weights), which
would hide distinct parameters behind Identity nodes."""
import os
import sys

import onnx
import torch
import torchvision
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "onnx")


def params(model):
    return sum(p.numel() for p in model.parameters())


def export(model, example, name, counts):
    model.train()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    path = os.path.join(OUT, name + ".onnx")
    # TRAINING keeps BatchNormalization and Dropout nodes: an eval export folds batchnorm into the
    # convolution before it (a bias instead of scale and shift) and drops dropout.
    torch.onnx.export(model, example, path, export_params=False, opset_version=17,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["input"], output_names=["output"])
    counts.append((name, params(model)))


class Recurrent(torch.nn.Module):
    """A bidirectional LSTM, then a GRU, then a per-token classifier."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(32, 48, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(96, 40, batch_first=True)
        self.fc = torch.nn.Linear(40, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        return self.fc(y)


class CausalEncoder(torch.nn.Module):
    """One decoder-style encoder layer whose causal mask is built inside forward (a constant)."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True)

    def forward(self, x):
        s = x.shape[1]
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        return self.layer(x, src_mask=mask)


class ConvOps(torch.nn.Module):
    """Grouped, dilated, rectangular and depthwise convolutions, batchnorm, pools, concat,
    multiply, sigmoid, tanh, nearest upsampling, a residual add, global pool, flatten, dense."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(16)
        self.grouped = torch.nn.Conv2d(16, 32, 3, padding=2, dilation=2, groups=4)
        self.rect = torch.nn.Conv2d(16, 16, (1, 5), padding=(0, 2))
        self.depthwise = torch.nn.Conv2d(48, 48, 3, padding=1, groups=48, bias=False)
        self.pool = torch.nn.MaxPool2d(2)
        self.avg = torch.nn.AvgPool2d(3, stride=1, padding=1)
        self.up = torch.nn.Upsample(scale_factor=2, mode="nearest")
        self.gate = torch.nn.Conv2d(48, 48, 1)
        self.head = torch.nn.Linear(48, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.stem(x)))
        x = torch.cat([self.grouped(x), self.rect(x)], dim=1)
        x = self.depthwise(x)
        y = self.pool(x)
        y = self.up(self.avg(y))
        x = x + y * torch.sigmoid(self.gate(y))
        x = torch.tanh(x)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return torch.softmax(self.head(x), dim=1)


class SeqOps(torch.nn.Module):
    """Token embedding, layernorm, dense per token, erf GELU, SiLU, leaky ReLU, a 1-D conv."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 32, bias=False)
        self.conv = torch.nn.Conv1d(32, 24, 3, padding=1)
        self.out = torch.nn.Linear(24, 100)

    def forward(self, ids):
        x = self.norm(self.emb(ids))
        x = torch.nn.functional.gelu(self.fc1(x))
        x = torch.nn.functional.silu(self.fc2(x))
        x = self.conv(x.transpose(1, 2)).transpose(1, 2)
        return self.out(torch.nn.functional.leaky_relu(x, 0.2))


def helper_model(name, nodes, inputs, output, extra_inputs=(), opset=17):
    """A model written node by node (ops the exporter would not emit, or not in eval mode)."""
    graph = helper.make_graph(nodes, name, inputs + list(extra_inputs), [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def float_input(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def written_models():
    # Dropout as a training graph has it (eval exports drop it), the Gelu op (opset 20; onnx 1.12's
    # checker does not know it, the importer does) and a plain MLP with Gemm.
    ratio = helper.make_node("Constant", [], ["ratio"], value=helper.make_tensor("r", TensorProto.FLOAT, [], [0.25]))
    nodes = [
        helper.make_node("Flatten", ["input"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc1.weight", "fc1.bias"], ["h1"], name="fc1", transB=1),
        helper.make_node("Gelu", ["h1"], ["g1"], name="gelu"),
        ratio,
        helper.make_node("Dropout", ["g1", "ratio"], ["d1"], name="dropout"),
        helper.make_node("Gemm", ["d1", "fc2.weight", "fc2.bias"], ["output"], name="fc2", transB=1),
    ]
    helper_model("mlp_dropout_gelu", nodes, [float_input("input", [1, 1, 28, 28])],
                 float_input("output", [1, 10]),
                 [float_input("fc1.weight", [128, 784]), float_input("fc1.bias", [128]),
                  float_input("fc2.weight", [10, 128]), float_input("fc2.bias", [10])])
    # An operator the importer does not map (TopK), for the error path.
    k = helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.INT64, [1], [3]))
    nodes = [
        helper.make_node("Gemm", ["input", "fc.weight"], ["h"], name="fc", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        k,
        helper.make_node("TopK", ["r", "k"], ["output", "idx"], name="top3"),
    ]
    helper_model("unsupported_topk", nodes, [float_input("input", [1, 16])], float_input("output", [1, 3]),
                 [float_input("fc.weight", [8, 16])])
    return [("mlp_dropout_gelu", 784 * 128 + 128 + 128 * 10 + 10), ("unsupported_topk", 8 * 16)]


def bad_inputs():
    """Broken models for tests/data/bad_inputs/onnx.tsv (the catalogue of refused inputs)."""
    bad = os.path.join(OUT, "..", "bad_inputs")
    def save(name, nodes, inputs, output, extra=()):
        graph = helper.make_graph(nodes, name, inputs + list(extra), [output])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(bad, name + ".onnx"))
    # A batch dimension left symbolic (dynamic_axes): layer sizes would be unknown.
    save("onnx_dynamic_batch", [helper.make_node("Relu", ["input"], ["output"], name="relu")],
         [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 8, 8])],
         helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", 3, 8, 8]))
    # A product of two activations that is no attention block.
    save("onnx_matmul_activations",
         [helper.make_node("Gemm", ["input", "w"], ["h"], name="fc", transB=1),
          helper.make_node("Transpose", ["h"], ["h_t"], name="t"),
          helper.make_node("MatMul", ["h", "h_t"], ["output"], name="outer")],
         [float_input("input", [1, 4])], float_input("output", [1, 1]), [float_input("w", [4, 4])])
    # A node reading a tensor that nothing makes (or that is made only later).
    save("onnx_dangling", [helper.make_node("Add", ["input", "ghost"], ["output"], name="add")],
         [float_input("input", [1, 3, 4, 4])], float_input("output", [1, 3, 4, 4]))
    # A second data input (int64 ids beside the features): NCF-style models have two.
    save("onnx_two_data_inputs", [helper.make_node("Relu", ["input"], ["output"], name="relu")],
         [float_input("input", [1, 4]), helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 4])],
         float_input("output", [1, 4]))
    # Two graph outputs: a workload has one loss input.
    save("onnx_two_outputs",
         [helper.make_node("Relu", ["input"], ["a"], name="r1"), helper.make_node("Sigmoid", ["input"], ["b"], name="s1")],
         [float_input("input", [1, 3, 4, 4])], float_input("a", [1, 3, 4, 4]), [])
    model = onnx.load(os.path.join(bad, "onnx_two_outputs.onnx"))
    model.graph.output.append(float_input("b", [1, 3, 4, 4]))
    onnx.save(model, os.path.join(bad, "onnx_two_outputs.onnx"))
    # A real model cut short: corrupt protobuf data.
    with open(os.path.join(OUT, "seq_ops.onnx"), "rb") as f:
        data = f.read()
    with open(os.path.join(bad, "onnx_truncated.onnx"), "wb") as f:
        f.write(data[:333])
    open(os.path.join(bad, "onnx_empty.onnx"), "wb").close()


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    counts = []
    export(torchvision.models.resnet50(weights=None), torch.randn(1, 3, 224, 224), "resnet50", counts)
    enc = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True), 2)
    export(enc, torch.randn(1, 16, 64), "transformer_encoder", counts)
    export(CausalEncoder(), torch.randn(1, 8, 32), "causal_encoder", counts)
    export(Recurrent(), torch.randn(1, 12, 32), "lstm_gru", counts)
    export(ConvOps(), torch.randn(1, 3, 32, 32), "conv_ops", counts)
    export(SeqOps(), torch.randint(0, 100, (1, 20)), "seq_ops", counts)
    counts += written_models()
    bad_inputs()
    with open(os.path.join(OUT, "params.tsv"), "w") as f:
        f.write("# model\tparameters (PyTorch: sum of p.numel() over model.parameters(); "
                "written by tools/onnx_fixtures/make_fixtures.py)\n")
        for name, n in counts:
            f.write(f"{name}\t{n}\n")
    for name, n in counts:
        size = os.path.getsize(os.path.join(OUT, name + ".onnx"))
        print(f"{name}: {n} parameters, {size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
