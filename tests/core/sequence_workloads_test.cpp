// The shipped transformer, recurrent and recommender workloads: parameter counts equal the
// published ones (each file states its count and what it includes), and decoder FLOPs per token
// follow 6 N + 12 l s d (Kaplan et al. 2020, Table 1; Narayanan et al. 2021, eq. 3).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/config_doc.h"
#include "core/lowering.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

ResolvedNetwork shipped(const std::string& name, WorkloadSpec* out = nullptr) {
  const WorkloadSpec w = parse_workload(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/workloads/" + name + ".yaml"));
  if (out) *out = w;
  return resolve_network(w.network);
}

struct Count {
  const char* workload;
  int64_t params;
};

class PublishedCount : public testing::TestWithParam<Count> {};

TEST_P(PublishedCount, ParametersEqualThePublication) {
  EXPECT_EQ(shipped(GetParam().workload).params, GetParam().params);
}

// Hugging Face's counts of the same models (GPT2Model, BertForQuestionAnswering, ...) and the
// hand sums in each file's header.
INSTANTIATE_TEST_SUITE_P(Shipped, PublishedCount,
                         testing::Values(Count{"gpt2_small", 124439808}, Count{"gpt2_medium", 354823168},
                                         Count{"gpt3_1p3b", 1315723264}, Count{"gpt3_175b", 174604259328},
                                         Count{"bert_base_squad", 108893186}, Count{"bert_large_squad", 334094338},
                                         Count{"bert_base_pretrain", 109514298}, Count{"ncf_movielens", 392601},
                                         Count{"lstm_lm1b", 65060864}, Count{"deepspeech2", 86618400},
                                         Count{"yolov3", 61949149}, Count{"transformer_lm1b", 35680256}));

struct Decoder {
  const char* workload;
  int64_t layers, sequence, d_model;
};

class DecoderFlops : public testing::TestWithParam<Decoder> {};

TEST_P(DecoderFlops, ForwardBackwardGemmFlopsPerTokenAre6NPlus12lsd) {
  const ResolvedNetwork net = shipped(GetParam().workload);
  const LoweredStep step = lower_training_step(net, OptimizerKind::AdamW);
  const double tokens = static_cast<double>(step.tokens_per_sample);
  EXPECT_EQ(step.tokens_per_sample, GetParam().sequence);
  const double flops_per_token = 2.0 * step.gemm_macs_per_sample() / tokens;
  const Decoder d = GetParam();
  const double expected = 6.0 * static_cast<double>(net.params) +
                          12.0 * static_cast<double>(d.layers * d.sequence * d.d_model);
  // N counts the position table and norms, which no GEMM touches: the gap is their share.
  EXPECT_NEAR(flops_per_token / expected, 1.0, 0.02) << flops_per_token << " vs " << expected;
}

INSTANTIATE_TEST_SUITE_P(Shipped, DecoderFlops,
                         testing::Values(Decoder{"gpt2_small", 12, 1024, 768}, Decoder{"gpt2_medium", 24, 1024, 1024},
                                         Decoder{"gpt3_1p3b", 24, 2048, 2048}, Decoder{"gpt3_175b", 96, 2048, 12288},
                                         Decoder{"transformer_lm1b", 6, 256, 512}));

TEST(SequenceWorkloads, AdamKeepsTwoStateTensorsAndCostsItsUpdate) {
  const ResolvedNetwork net = shipped("gpt2_small");
  const LoweredStep adam = lower_training_step(net, OptimizerKind::AdamW);
  const LoweredStep sgd = lower_training_step(net, OptimizerKind::Momentum);
  EXPECT_EQ(adam.optimizer_state_tensors, 2);
  EXPECT_EQ(sgd.optimizer_state_tensors, 1);
  const Op& u = adam.ops.back();
  EXPECT_EQ(u.phase, Phase::Update);
  EXPECT_EQ(u.elements, net.params);
  EXPECT_DOUBLE_EQ(u.tensors_moved, 7.0);  // read w, g, m, v; write w, m, v
  EXPECT_DOUBLE_EQ(sgd.ops.back().tensors_moved, 4.0);
}

TEST(SequenceWorkloads, RecommenderCountsOneTokenPerField) {
  const LoweredStep step = lower_training_step(shipped("ncf_movielens"), OptimizerKind::Adam);
  EXPECT_EQ(step.tokens_per_sample, 2);
  // Forward, data and weight gradient of each dense layer; the embeddings gather rows, no GEMM.
  EXPECT_EQ(step.gemm_macs_per_sample(), 3.0 * (64 * 32 + 32 * 16 + 16 * 8 + 16 * 1));
}

}  // namespace
}  // namespace kp
