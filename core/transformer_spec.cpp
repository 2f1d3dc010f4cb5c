#include "core/transformer_spec.h"

#include "core/limits.h"

namespace kp {
namespace {

using namespace limits;

struct Builder {
  NetworkSpec net;
  Diagnostic at;
  bool bias = true;
  double dropout = 0;

  std::string add(LayerSpec l, std::string name, std::vector<std::string> inputs = {}) {
    l.name = std::move(name);
    l.inputs = std::move(inputs);
    l.at = at;
    net.layers.push_back(l);
    return net.layers.back().name;
  }
  std::string simple(LayerKind k, std::string name, std::vector<std::string> inputs = {}) {
    LayerSpec l;
    l.kind = k;
    return add(l, std::move(name), std::move(inputs));
  }
  std::string dense(int64_t units, std::string name, std::vector<std::string> inputs = {},
                    TensorSplit split = TensorSplit::Auto) {
    LayerSpec l;
    l.kind = LayerKind::Dense, l.units = units, l.bias = bias, l.tensor_parallel = split;
    return add(l, std::move(name), std::move(inputs));
  }
  std::string drop(const std::string& name) {
    if (dropout <= 0) return name;
    LayerSpec l;
    l.kind = LayerKind::Dropout, l.rate = dropout;
    return add(l, name + "_dropout");
  }
};

}  // namespace

NetworkSpec parse_transformer(ConfigMap& t) {
  Builder b;
  b.at = t.doc().at(t.node(), "transformer", "");
  const int64_t layers = t.integer("layers", 1, kLayers / 16);
  const int64_t d = t.integer("d_model", 1, kUnits);
  LayerSpec attn;
  attn.kind = LayerKind::Attention;
  attn.heads = t.integer("heads", 1, kHeads);
  attn.kv_heads = t.integer_or("kv_heads", 1, kHeads, 0);
  attn.head_dim = t.integer_or("head_dim", 1, kUnits, 0);
  if (!t.has("causal")) t.error("causal", "missing: causal: true (a decoder, GPT) or false (an encoder, BERT)");
  attn.causal = t.boolean_or("causal", false);
  attn.fused = t.boolean_or("fused_attention", false);
  const int64_t d_ff = t.integer_or("d_ff", 1, kUnits, 4 * d);
  const int act = t.choice_or("activation", {"gelu", "relu", "silu", "swiglu"}, 0);
  const bool pre = t.choice_or("norm", {"pre", "post"}, 0) == 0;
  const LayerKind norm = t.choice_or("norm_kind", {"layernorm", "rmsnorm"}, 0) == 0 ? LayerKind::LayerNorm
                                                                                     : LayerKind::RmsNorm;
  const int64_t vocab = t.integer("vocab", 2, kVocab);
  const int64_t sequence = t.integer("sequence", 1, kSequence);
  const bool learned_positions = t.choice_or("positions", {"learned", "none"}, 0) == 0;
  // The position table may be longer than the trained sequence (BERT: 512 rows, SQuAD at 384).
  const int64_t max_positions = t.integer_or("max_positions", sequence, kSequence, sequence);
  const int64_t segments = t.integer_or("segments", 1, 16, 0);
  const bool tied = t.boolean_or("tied_embeddings", true);
  b.bias = t.boolean_or("bias", true);
  attn.bias = b.bias;
  b.dropout = t.number_or("dropout", 0.0, 0.99, 0.0);
  // lm: next-token (or masked-token) logits over the vocabulary; mlm: BERT's transform (dense,
  // gelu, layernorm) before the tied decoder; qa: start/end logits per token (SQuAD); classify: a
  // pooled sequence to `classes`.
  const int head = t.choice_or("head", {"lm", "mlm", "qa", "classify"}, 0);
  const bool pooler = t.boolean_or("pooler", false);
  const int64_t classes = head == 3 ? t.integer("classes", 2, kChannels) : 0;

  b.net.input = Shape{1, sequence, 1, true, vocab};
  LayerSpec emb;
  emb.kind = LayerKind::Embedding, emb.dim = d, emb.vocab = vocab;
  emb.positions = learned_positions ? max_positions : 0;
  emb.segments = segments;
  std::string x = b.drop(b.add(emb, "embed"));
  if (!pre) x = b.simple(norm, "embed_norm");
  const auto act_kind = [&] {
    static const LayerKind kinds[] = {LayerKind::Gelu, LayerKind::Relu, LayerKind::Silu, LayerKind::Swiglu};
    return kinds[act];
  };
  for (int64_t i = 1; i <= layers; ++i) {
    const std::string s = std::to_string(i);
    std::string in = pre ? b.simple(norm, "block" + s + "_norm1", {x}) : x;
    std::string a = b.drop(b.add(attn, "block" + s + "_attention", {in}));
    std::string r1 = b.simple(LayerKind::Add, "block" + s + "_residual1", {a, x});
    if (!pre) r1 = b.simple(norm, "block" + s + "_norm1");
    in = pre ? b.simple(norm, "block" + s + "_norm2", {r1}) : r1;
    // Megatron-LM's MLP split: ff1 by columns, its activation on the split, ff2 by rows.
    b.dense(act == 3 ? 2 * d_ff : d_ff, "block" + s + "_ff1", {in}, TensorSplit::Column);
    LayerSpec a_l;
    a_l.kind = act_kind(), a_l.tensor_parallel = TensorSplit::Sharded;
    b.add(a_l, "block" + s + "_" + (act == 3 ? "swiglu" : "activation"));
    const std::string f = b.drop(b.dense(d, "block" + s + "_ff2", {}, TensorSplit::Row));
    x = b.simple(LayerKind::Add, "block" + s + "_residual2", {f, r1});
    if (!pre) x = b.simple(norm, "block" + s + "_norm2");
  }
  if (pre) x = b.simple(norm, "final_norm");
  if (head == 0 || head == 1) {
    if (head == 1) {
      b.dense(d, "mlm_transform");
      b.simple(LayerKind::Gelu, "mlm_activation");
      b.simple(norm, "mlm_norm");
    }
    LayerSpec out;
    out.kind = LayerKind::Dense, out.units = vocab, out.bias = head == 1 && b.bias;
    // The vocabulary-parallel output layer and cross-entropy of Megatron-LM.
    out.tensor_parallel = TensorSplit::Column;
    if (tied) out.tied = "embed";
    b.add(out, "logits");
    LayerSpec loss;
    loss.kind = LayerKind::SoftmaxCrossEntropy, loss.tensor_parallel = TensorSplit::Sharded;
    b.add(loss, "loss");
  }
  if (pooler || head == 3) {
    // BERT's pooler reads the first token; a mean over positions costs the same.
    b.simple(LayerKind::GlobalAvgPool, "pool", {x});
    b.dense(d, "pooler");
    b.simple(LayerKind::Tanh, "pooler_activation");
  }
  if (head == 2) {
    b.dense(2, "qa_logits", {x});
    b.simple(LayerKind::SoftmaxCrossEntropy, "loss");
  } else if (head == 3) {
    b.dense(classes, "classifier");
    b.simple(LayerKind::SoftmaxCrossEntropy, "loss");
  } else if (pooler) {
    // A pooler beside an lm head (BERT pre-training's next-sentence branch, here without its loss)
    // would be a dangling output: refused rather than silently counted.
    t.error("pooler", "pooler: true needs head: classify (or qa, which has none in BERT)");
  }
  b.net.classes = classes;
  return b.net;
}

}  // namespace kp
