// Kernels per training step as the lowering gives them (each op one launch; a recurrence's op one
// per position), hand-counted for the shipped MLP and per transformer block (issue 35: the
// launch costs of runtime.kernel_launch follow these counts).
#include <gtest/gtest.h>

#include <string>

#include "core/config_doc.h"
#include "core/lowering.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

int64_t kernels(const ConfigDoc& doc) {
  const WorkloadSpec w = parse_workload(doc);
  const LoweredStep step = lower_training_step(resolve_network(w.network), w.optimizer.kind);
  int64_t n = 0;
  for (const Op& op : step.ops) n += op.fused_with_previous ? 0 : op.serial;
  return n;
}

ConfigDoc decoder(int layers, bool fused = false) {
  return ConfigDoc::parse("name: t\ntransformer: {layers: " + std::to_string(layers) +
                              ", d_model: 64, heads: 4, d_ff: 256, activation: gelu, norm: pre, causal: true,\n"
                              "              fused_attention: " + std::string(fused ? "true" : "false") + ",\n"
                              "              vocab: 512, sequence: 32}\n"
                              "dataset: {kind: none, train_size: 1000}\noptimizer: {kind: adamw, learning_rate: 0.001}\n"
                              "target: {validation_loss: 2.0}\nstep_curve: {source: law, n_inf: 100, alpha: 1000}\n",
                          "decoder.yaml");
}

// fc1..fc3 with bias: forward GEMM and bias, backward data and weight GEMMs (4 each; fc1 reads
// flatten's output, so it computes a data gradient too); each relu and the loss 1 + 1; the
// update 1: 3 x 4 + 2 x 2 + 2 + 1 = 19.
TEST(KernelCount, FashionMnistMlpIsNineteen) {
  EXPECT_EQ(kernels(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/workloads/fmnist_mlp.yaml")), 19);
}

// One more pre-norm block: two layer norms (1 + 1 each), attention with biases (forward: QKV
// GEMM and bias, scores, softmax, context, output GEMM and bias = 7; backward: output data and
// weight GEMMs, dP, dV, softmax, dQ, dK, QKV data and weight GEMMs = 9), two residual adds
// (1 forward each, nothing backward), ff1 and ff2 (4 each), GELU (1 + 1), and two gradient sums
// where a tensor has two readers (the block input and the first residual): 4 + 16 + 2 + 8 + 2 + 2.
TEST(KernelCount, EachTransformerBlockAddsThirtyFour) {
  EXPECT_EQ(kernels(decoder(2)) - kernels(decoder(1)), 34);
  EXPECT_EQ(kernels(decoder(5)) - kernels(decoder(1)), 4 * 34);
  // FlashAttention: scores, softmax and context one kernel (2 fewer), its backward's dP, dV,
  // softmax gradient, dQ and dK one kernel (4 fewer): 28.
  EXPECT_EQ(kernels(decoder(2, true)) - kernels(decoder(1, true)), 28);
}

}  // namespace
}  // namespace kp
