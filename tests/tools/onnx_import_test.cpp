// kneepoint import onnx on the fixtures of tests/data/onnx (tools/onnx_fixtures/make_fixtures.py):
// parameter counts against PyTorch's (params.tsv), the layers and keys of each mapped operator,
// the attention fusion, and the located error of an unsupported operator.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tools/import/onnx_file.h"
#include "tools/import/onnx_infer_isolated.h"
#include "tools/import/onnx_mapper.h"
#include "tools/import/workload_writer.h"
#include "core/config_doc.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

const std::string kDir = std::string(KP_SOURCE_DIR) + "/tests/data/onnx/";

ImportedNetwork import(const std::string& name) {
  const std::string path = kDir + name + ".onnx";
  return import_onnx(OnnxGraph(read_onnx_model(path), path), name);
}

std::map<std::string, int64_t> pytorch_counts() {
  std::map<std::string, int64_t> out;
  std::ifstream in(kDir + "params.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    std::string name;
    int64_t n = 0;
    row >> name >> n;
    out[name] = n;
  }
  return out;
}

std::string key(const ImportedLayer& l, const std::string& k) {
  for (const auto& [name, value] : l.keys)
    if (name == k) return value;
  return "<none>";
}

std::vector<const ImportedLayer*> of_kind(const ImportedNetwork& n, const std::string& kind) {
  std::vector<const ImportedLayer*> out;
  for (const ImportedLayer& l : n.layers)
    if (l.kind == kind) out.push_back(&l);
  return out;
}

TEST(OnnxImport, ParameterCountsEqualPyTorchs) {
  const std::map<std::string, int64_t> counts = pytorch_counts();
  ASSERT_EQ(counts.at("resnet50"), 25557032);  // torchvision's published ResNet-50 count
  ASSERT_EQ(counts.at("transformer_encoder"), 66944);
  for (const auto& [name, pytorch] : counts) {
    if (name == "unsupported_topk") continue;
    const ImportedNetwork n = import(name);
    ASSERT_FALSE(n.error) << name << ": " << n.error->format();
    EXPECT_EQ(n.parameters, pytorch) << name;
    int64_t sum = 0;
    for (const ImportedLayer& l : n.layers) sum += l.parameters;
    EXPECT_EQ(sum, n.parameters) << name;
  }
}

// The written YAML is a workload kneepoint loads: its own parser resolves the graph to the same
// parameter count as PyTorch's.
TEST(OnnxImport, WrittenWorkloadsLoadWithPyTorchsParameterCount) {
  for (const auto& [name, pytorch] : pytorch_counts()) {
    if (name == "unsupported_topk") continue;
    const std::string yaml = write_workload_yaml(import(name));
    const WorkloadSpec w = parse_workload(ConfigDoc::parse(yaml, name + ".yaml"));
    EXPECT_EQ(resolve_network(w.network).params, pytorch) << name;
  }
}

TEST(OnnxImport, ResNet50Structure) {
  const ImportedNetwork n = import("resnet50");
  EXPECT_EQ(n.input_yaml, "{channels: 3, height: 224, width: 224}");
  EXPECT_EQ(n.classes, 1000);
  EXPECT_EQ(of_kind(n, "conv2d").size(), 53u);  // 49 in the blocks and stem + 4 projection shortcuts
  EXPECT_EQ(of_kind(n, "batchnorm").size(), 53u);
  EXPECT_EQ(of_kind(n, "add").size(), 16u);     // one per bottleneck block (3 + 4 + 6 + 3)
  const ImportedLayer& stem = n.layers.front();
  EXPECT_EQ(stem.kind, "conv2d");
  EXPECT_EQ(key(stem, "kernel"), "7");
  EXPECT_EQ(key(stem, "stride"), "2");
  EXPECT_EQ(key(stem, "padding"), "3");
  EXPECT_EQ(stem.parameters, 64 * 3 * 7 * 7);
  const ImportedLayer& fc = n.layers[n.layers.size() - 2];
  EXPECT_EQ(fc.kind, "dense");
  EXPECT_EQ(fc.parameters, 2048 * 1000 + 1000);
  EXPECT_EQ(n.layers.back().kind, "softmax_cross_entropy");
  EXPECT_FALSE(n.loss_note.empty());  // the graph ends at the logits: the loss is a placeholder
}

TEST(OnnxImport, TransformerEncoderAttentionIsOneLayer) {
  const ImportedNetwork n = import("transformer_encoder");
  EXPECT_EQ(n.input_yaml, "{sequence: 16, features: 64}");
  const auto att = of_kind(n, "attention");
  ASSERT_EQ(att.size(), 2u);
  for (const ImportedLayer* a : att) {
    EXPECT_EQ(key(*a, "heads"), "4");
    EXPECT_EQ(key(*a, "kv_heads"), "4");
    EXPECT_EQ(key(*a, "head_dim"), "16");
    EXPECT_EQ(key(*a, "causal"), "false");
    EXPECT_EQ(key(*a, "bias"), "true");
    // d (h hd) + 2 d (kv hd) + h hd d + biases (3 x 64 in, 64 out), d = 64.
    EXPECT_EQ(a->parameters, 64 * 64 + 2 * 64 * 64 + 64 * 64 + 3 * 64 + 64);
  }
  EXPECT_EQ(att[0]->name, "layers.0.self_attn");
  EXPECT_EQ(of_kind(n, "layernorm").size(), 4u);
  EXPECT_EQ(of_kind(n, "dense").size(), 4u);
  EXPECT_EQ(of_kind(n, "dropout").size(), 6u);  // dropout1, dropout, dropout2 per layer
  const auto adds = of_kind(n, "add");
  ASSERT_EQ(adds.size(), 4u);
  EXPECT_EQ(adds[0]->inputs, (std::vector<std::string>{"input", "layers.0.dropout1"}));
}

TEST(OnnxImport, MaskedScoresMakeACausalAttention) {
  const ImportedNetwork n = import("causal_encoder");
  const auto att = of_kind(n, "attention");
  ASSERT_EQ(att.size(), 1u);
  EXPECT_EQ(key(*att[0], "causal"), "true");  // torch.triu(-inf) added to the scores
  EXPECT_EQ(key(*att[0], "heads"), "2");
  EXPECT_EQ(att[0]->parameters, 4 * 32 * 32 + 4 * 32);
  EXPECT_TRUE(of_kind(n, "dropout").empty());  // dropout=0.0 exports Dropout nodes that do nothing
}

TEST(OnnxImport, RecurrentLayersUsePyTorchsTwoBiasVectors) {
  const ImportedNetwork n = import("lstm_gru");
  EXPECT_EQ(n.input_yaml, "{sequence: 12, features: 32}");
  ASSERT_GE(n.layers.size(), 3u);
  EXPECT_EQ(n.layers[0].kind, "lstm");
  EXPECT_EQ(key(n.layers[0], "units"), "48");
  EXPECT_EQ(key(n.layers[0], "bidirectional"), "true");
  EXPECT_EQ(n.layers[0].parameters, 2 * (4 * 48 * (32 + 48) + 2 * 4 * 48));
  EXPECT_EQ(n.layers[1].kind, "gru");
  EXPECT_EQ(key(n.layers[1], "bidirectional"), "false");
  EXPECT_EQ(n.layers[1].parameters, 3 * 40 * (96 + 40) + 2 * 3 * 40);  // reads the 2 x 48 outputs
  EXPECT_EQ(n.layers[2].kind, "dense");
  EXPECT_EQ(key(n.layers[2], "units"), "10");
}

TEST(OnnxImport, ConvolutionVariantsPoolsAndMerges) {
  const ImportedNetwork n = import("conv_ops");
  const auto convs = of_kind(n, "conv2d");
  ASSERT_EQ(convs.size(), 5u);
  EXPECT_EQ(key(*convs[1], "groups"), "4");
  EXPECT_EQ(key(*convs[1], "dilation"), "2");
  EXPECT_EQ(key(*convs[1], "padding"), "2");
  EXPECT_EQ(convs[1]->parameters, 32 * 4 * 3 * 3 + 32);
  EXPECT_EQ(key(*convs[2], "kernel"), "[1, 5]");
  EXPECT_EQ(key(*convs[2], "padding"), "[0, 2]");
  EXPECT_EQ(key(*convs[3], "groups"), "48");  // depthwise
  EXPECT_EQ(key(*convs[3], "bias"), "false");
  ASSERT_EQ(of_kind(n, "avgpool").size(), 1u);
  EXPECT_EQ(key(*of_kind(n, "avgpool")[0], "padding"), "1");  // torch's Pad node, folded in
  EXPECT_EQ(key(*of_kind(n, "maxpool")[0], "stride"), "2");
  EXPECT_EQ(key(*of_kind(n, "upsample")[0], "factor"), "2");
  EXPECT_EQ(of_kind(n, "concat")[0]->inputs, (std::vector<std::string>{"grouped", "rect"}));
  EXPECT_EQ(of_kind(n, "multiply").size(), 1u);
  EXPECT_EQ(of_kind(n, "sigmoid").size(), 1u);
  EXPECT_EQ(of_kind(n, "tanh").size(), 1u);
  EXPECT_EQ(of_kind(n, "global_avgpool").size(), 1u);
  EXPECT_EQ(n.layers.back().kind, "softmax_cross_entropy");  // the final Softmax is the loss
  EXPECT_TRUE(n.loss_note.empty());
  EXPECT_EQ(n.classes, 10);
}

TEST(OnnxImport, TokenModelsEmbeddingsAndActivations) {
  const ImportedNetwork n = import("seq_ops");
  EXPECT_EQ(n.input_yaml, "{sequence: 20, vocab: 100}");
  std::vector<std::string> kinds;
  for (const ImportedLayer& l : n.layers) kinds.push_back(l.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"embedding", "layernorm", "dense", "gelu", "dense", "silu", "conv1d",
                                             "leaky_relu", "dense", "softmax_cross_entropy"}));
  EXPECT_EQ(key(n.layers[0], "vocab"), "100");
  EXPECT_EQ(key(n.layers[0], "dim"), "32");
  EXPECT_EQ(key(n.layers[4], "bias"), "false");
  EXPECT_EQ(key(n.layers[6], "filters"), "24");
  EXPECT_EQ(key(n.layers[7], "slope"), "0.2");
}

TEST(OnnxImport, GeluOpDropoutAndFlatten) {
  const ImportedNetwork n = import("mlp_dropout_gelu");
  std::vector<std::string> kinds;
  for (const ImportedLayer& l : n.layers) kinds.push_back(l.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"flatten", "dense", "gelu", "dropout", "dense", "softmax_cross_entropy"}));
  EXPECT_EQ(key(n.layers[3], "rate"), "0.25");
}

TEST(OnnxImport, UnsupportedOperatorNamesNodeOpAndSummaryLine) {
  const ImportedNetwork n = import("unsupported_topk");
  ASSERT_TRUE(n.error);
  const std::string path = kDir + "unsupported_topk.onnx";
  EXPECT_EQ(n.error->format(), path + ": error: node 3 \"top3\" (op TopK): operator TopK is not supported by "
                                      "kneepoint import onnx (line 6 of the summary)");
  ASSERT_GE(n.summary.size(), 6u);
  EXPECT_NE(n.summary[5].find("TopK"), std::string::npos);
  EXPECT_NE(n.summary[5].find("top3"), std::string::npos);
  EXPECT_NE(n.summary[5].find("UNSUPPORTED"), std::string::npos);
}

// tests/data/bad_inputs/onnx_infer_crash.onnx is transformer_encoder.onnx with one byte changed:
// the declared shape of graph input layers.1.self_attn.in_proj_weight reads [448, 64] instead of
// [192, 64] (varint c0 01 -> c0 03). It parses, every node matches its schema, and libonnx 1.12's
// InferShapes dies on it with SIGSEGV (found by a bit-flip run over the fixtures).
TEST(OnnxImport, ShapeInferenceCrashIsContainedAndALocatedError) {
  const std::string crash = std::string(KP_SOURCE_DIR) + "/tests/data/bad_inputs/onnx_infer_crash.onnx";
  const InferredModel run = infer_shapes_isolated(read_onnx_model(crash));
  EXPECT_EQ(run.outcome, InferredModel::Outcome::Crashed);
  EXPECT_FALSE(run.how.empty());  // "signal 11 (Segmentation fault)"; a sanitizer build exits instead
  try {
    OnnxGraph(read_onnx_model(crash), crash);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(crash + ": error: not a valid ONNX model: ONNX's shape inference died"),
              std::string::npos)
        << e.what();
  }
  // The sound model infers in the child and comes back with its intermediate shapes.
  const InferredModel good = infer_shapes_isolated(read_onnx_model(kDir + "transformer_encoder.onnx"));
  ASSERT_EQ(good.outcome, InferredModel::Outcome::Inferred);
  EXPECT_GT(good.model.graph().value_info_size(), 100);
}

// A model built here (no exporter at hand makes a bare Split): x [1, 8, 16] split along the
// features into [4, 12] (opset 13, sizes as an input), relu on the first piece, the pieces
// concatenated the other way round. It imports as kneepoint's split, read as "name:0" and "name:1".
onnx::ModelProto split_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("split");
  auto value = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g.add_input(), "x", {1, 8, 16});
  value(g.add_output(), "y", {1, 8, 16});
  onnx::TensorProto& sizes = *g.add_initializer();
  sizes.set_name("sizes");
  sizes.set_data_type(onnx::TensorProto::INT64);
  sizes.add_dims(2);
  sizes.add_int64_data(4);
  sizes.add_int64_data(12);
  auto node = [&](const std::string& op, const std::string& name, std::vector<std::string> in,
                  std::vector<std::string> out) {
    onnx::NodeProto& n = *g.add_node();
    n.set_op_type(op);
    n.set_name(name);
    for (const std::string& t : in) n.add_input(t);
    for (const std::string& t : out) n.add_output(t);
    return &n;
  };
  onnx::AttributeProto* axis = node("Split", "parts", {"x", "sizes"}, {"a", "b"})->add_attribute();
  axis->set_name("axis"), axis->set_type(onnx::AttributeProto::INT), axis->set_i(2);
  node("Relu", "act", {"a"}, {"ra"});
  axis = node("Concat", "join", {"b", "ra"}, {"y"})->add_attribute();
  axis->set_name("axis"), axis->set_type(onnx::AttributeProto::INT), axis->set_i(2);
  return m;
}

TEST(OnnxImport, SplitBecomesASplitLayerWhosePiecesAreRead) {
  const ImportedNetwork n = import_onnx(OnnxGraph(split_model(), "split.onnx"), "split");
  ASSERT_FALSE(n.error) << n.error->format();
  const auto splits = of_kind(n, "split");
  ASSERT_EQ(splits.size(), 1u);
  EXPECT_EQ(key(*splits[0], "sizes"), "[4, 12]");
  const std::string parts = splits[0]->name;
  EXPECT_EQ(of_kind(n, "relu").at(0)->inputs, (std::vector<std::string>{parts + ":0"}));
  EXPECT_EQ(of_kind(n, "concat").at(0)->inputs, (std::vector<std::string>{parts + ":1", of_kind(n, "relu")[0]->name}));
  const WorkloadSpec w = parse_workload(ConfigDoc::parse(write_workload_yaml(n), "split.yaml"));
  const ResolvedNetwork net = resolve_network(w.network);
  EXPECT_EQ(net.layers[1].in, (Shape{4, 8, 1, true, 0}));   // relu on the 4-feature piece
  EXPECT_EQ(net.layers[2].out, (Shape{16, 8, 1, true, 0}));  // 12 + 4 joined again
  EXPECT_EQ(net.params, 0);
}

}  // namespace
}  // namespace kp
