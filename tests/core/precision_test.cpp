// Precision policies: the presets' byte widths per tensor class, the array's speed per data type
// from the hardware's peaks, the preference list, and the located errors (core/precision.h).
#include <gtest/gtest.h>

#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/hw_spec.h"
#include "core/precision.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;

HardwareSpec shipped(const std::string& name) {
  return parse_hardware(ConfigDoc::load(kSrc + "/hw_configs/" + name + ".yaml"));
}

PrecisionSpec policy_of(const std::string& precision_line) {
  const std::string text = "name: w\n" + precision_line +
                           "\ninput: {channels: 1, height: 4, width: 4}\nclasses: 2\n"
                           "network:\n  - {kind: flatten}\n  - {kind: dense, units: 2}\n"
                           "  - {kind: softmax_cross_entropy}\n"
                           "dataset: {kind: synthetic}\noptimizer: {kind: nesterov, learning_rate: 0.1}\n"
                           "target: {validation_error: 0.1}\nstep_curve: {source: law, n_inf: 1, alpha: 1}\n";
  return parse_workload(ConfigDoc::parse(text, "wl.yaml")).precision;
}

void expect_bytes(const std::string& preset, int64_t w, int64_t g, int64_t m, int64_t o, int64_t a, bool separate) {
  PrecisionPolicy p;
  ASSERT_TRUE(precision_preset(preset, p)) << preset;
  const TensorBytes b = tensor_bytes(p);
  EXPECT_EQ(b.weights, w) << preset;
  EXPECT_EQ(b.gradients, g) << preset;
  EXPECT_EQ(b.master, m) << preset;
  EXPECT_EQ(b.optimizer_state, o) << preset;
  EXPECT_EQ(b.activations, a) << preset;
  EXPECT_EQ(b.separate_master, separate) << preset;
}

}  // namespace

// fp32/tf32 store everything in 4 bytes; AMP reads 2-byte weight copies and keeps 2-byte
// activations beside fp32 parameters, gradients and state; fp8 products read 1-byte weights.
TEST(Precision, PresetsGiveTheWidthOfEveryTensorClass) {
  expect_bytes("fp32", 4, 4, 4, 4, 4, false);
  expect_bytes("tf32", 4, 4, 4, 4, 4, false);
  expect_bytes("amp_fp16", 2, 4, 4, 4, 2, true);
  expect_bytes("amp_bf16", 2, 4, 4, 4, 2, true);
  expect_bytes("fp8", 1, 4, 4, 4, 2, true);
}

// H100 SXM5: geometry 2 x 32 x 64 x 132 x 1.83 GHz = 989.56 TFLOP/s; fp32 at 67 TFLOP/s runs the
// folds at 67 / 989.56 of it, bf16 at 989.4 / 989.56.
TEST(Precision, ArraySpeedIsThePeakOverTheGeometry) {
  const HardwareSpec hw = shipped("h100_cluster");
  const double geometry = 2.0 * 32 * 64 * 132 * 1.83e9;
  EXPECT_DOUBLE_EQ(resolve_precision(policy_of("precision: fp32"), hw).matmul_speed, 67e12 / geometry);
  EXPECT_DOUBLE_EQ(resolve_precision(policy_of("precision: amp_bf16"), hw).matmul_speed, 989.4e12 / geometry);
  EXPECT_DOUBLE_EQ(resolve_precision(policy_of("precision: fp8"), hw).matmul_speed, 1979e12 / geometry);
}

TEST(Precision, AListPicksTheFirstTypeTheChipHas) {
  const PrecisionSpec p = policy_of("precision: [amp_bf16, {matmul: fp16, elementwise: fp16, master: fp32, "
                                    "gradients: fp16}, fp32]");
  ASSERT_EQ(p.options.size(), 3u);
  EXPECT_EQ(resolve_precision(p, shipped("h100_cluster")).policy.preset, "amp_bf16");
  const Precision t4 = resolve_precision(p, shipped("t4_cluster"));  // Turing: no bf16
  EXPECT_EQ(t4.policy.matmul, DataType::Fp16);
  EXPECT_EQ(t4.bytes.gradients, 2);
  EXPECT_DOUBLE_EQ(t4.matmul_speed, 65e12 / (2.0 * 8 * 8 * 40 * 1.59e9));
}

TEST(Precision, AbsentIsFp32) {
  const PrecisionSpec p = policy_of("");
  EXPECT_FALSE(p.written);
  ASSERT_EQ(p.options.size(), 1u);
  EXPECT_EQ(p.options[0].preset, "fp32");
}

TEST(Precision, AnUnsupportedTypeIsAnErrorAtTheWorkloadKey) {
  try {
    resolve_precision(policy_of("precision: amp_bf16"), shipped("t4_cluster"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().at(0).format(),
              "wl.yaml:2:12: error: precision: the products' type (bf16) is not supported by " + kSrc +
                  "/hw_configs/t4_cluster.yaml (chip.compute.array.peak lists fp32, fp16, int8)");
  }
}

// The removed chip- and workload-level width say what to write instead.
TEST(Precision, TheOldWidthKeysAreErrors) {
  try {
    policy_of("bytes_per_element: 2");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().at(0).format(),
              "wl.yaml:2:20: error: bytes_per_element: replaced by a precision policy: write precision: with a "
              "preset (fp32, tf32, amp_fp16, amp_bf16, fp8) or {matmul, elementwise, master, gradients}");
  }
}

}  // namespace kp

namespace kp {

// Every shipped chip lists its types; on the GPU files the array's geometry is the datasheet's
// dense 16-bit (or, without tensor cores, FP32) rate within 1%, so the types the datasheets give
// run at peak / geometry of it, and each has a runtime: section.
TEST(Precision, ShippedChipsListTheirTypes) {
  const struct {
    const char* file;
    DataType native;
  } gpus[] = {{"p100_dgx1", DataType::Fp32}, {"v100_dgx1", DataType::Fp16}, {"a100_dgx", DataType::Fp16},
              {"h100_cluster", DataType::Bf16}, {"t4_cluster", DataType::Fp32}};
  for (const auto& g : gpus) {
    const HardwareSpec hw = shipped(g.file);
    const SystolicArraySpec& a = hw.array;
    const double geometry = 2.0 * static_cast<double>(a.rows * a.cols * a.count) * hw.clock_hz;
    EXPECT_NEAR(a.peaks.peak(g.native) / geometry, 1.0, 0.01) << g.file;
    EXPECT_TRUE(hw.runtime.present) << g.file;
  }
  for (const char* f : {"edge_npu", "tpu_v3_pod", "tpu_v3_build"})
    EXPECT_FALSE(shipped(f).array.peaks.supported_names().empty()) << f;
}

}  // namespace kp
