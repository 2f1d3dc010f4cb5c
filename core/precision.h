#pragma once
// A workload's precision policy (`precision:`) and what it means on one chip. Contract:
// parse_precision() reads the workload key (a preset name or a map of the four types) and records
// located errors in the map; resolve_precision() checks the policy against the hardware's
// per-type peaks (chip.compute.array.peak) and throws a ConfigError at the workload's key when a
// product's type is not supported. The byte widths of every tensor class follow the types
// (TensorBytes), so bytes moved, SRAM tiles, all-reduce sizes and memory footprint use them.
//
// Presets (what the frameworks do by default in each mode):
//   fp32      everything fp32 (PyTorch's default, TF32 off)
//   tf32      products with tf32 inputs, fp32 storage (torch.backends.cuda.matmul.allow_tf32,
//             cuDNN's allow_tf32; NVIDIA A100 whitepaper 2020)
//   amp_fp16  torch.autocast + GradScaler (Micikevicius et al., ICLR 2018): products and the
//             activations between them fp16; parameters, their gradients (what DDP all-reduces)
//             and optimizer state fp32
//   amp_bf16  the same with bf16 (Kalamkar et al. 2019), no loss scaling
//   fp8       NVIDIA Transformer Engine: fp8 products, bf16 activations, fp32 parameters,
//             gradients and optimizer state (Micikevicius et al., "FP8 formats", 2022)
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "core/data_type.h"

namespace kp {

class ConfigMap;
struct HardwareSpec;

struct PrecisionPolicy {
  DataType matmul = DataType::Fp32;       // inputs of GEMMs and convolutions (the arrays)
  DataType elementwise = DataType::Fp32;  // activations and the vector units' work on them
  DataType master = DataType::Fp32;       // the weights the optimizer updates, and its state
  DataType gradients = DataType::Fp32;    // weight gradients, as all-reduced
  std::string preset;                     // the preset's name, or "{matmul: ...}" for a map
};

// The workload's `precision:`: one policy (a preset or a map), or a list of them in order of
// preference, of which a chip runs the first whose product type it supports (as frameworks pick
// bf16 where the chip has it and fp16 or fp32 elsewhere), so one workload file serves a study
// over several chips.
struct PrecisionSpec {
  std::vector<PrecisionPolicy> options;   // never empty (absent: {fp32})
  bool written = false;                   // false: the workload left `precision` out
  Diagnostic at;                          // where `precision` was written (else the workload file)
};

// Bytes per element of each tensor class of a training step: what a memory-footprint model and
// the traffic models read (never a single chip-wide width).
struct TensorBytes {
  int64_t weights = 4;          // the copy the products read (the matmul type)
  int64_t gradients = 4;        // weight gradients
  int64_t master = 4;           // the optimizer's copy of the weights
  int64_t optimizer_state = 4;  // momentum / Adam moments (kept in the master type)
  int64_t activations = 4;      // layer outputs kept for backward (the elementwise type)
  bool separate_master = false; // the products read a copy of the master weights in another type
};
TensorBytes tensor_bytes(const PrecisionPolicy& p);

// A policy on one chip: the widths, and the array's speed for the product type relative to its
// geometry (peak[matmul] / (2 * rows * cols * count * clock)).
struct Precision {
  PrecisionPolicy policy;
  TensorBytes bytes;
  double matmul_speed = 1.0;
  int64_t matmul_bytes() const { return storage_bytes(policy.matmul); }
  int64_t elementwise_bytes() const { return bytes.activations; }
};

// The named preset; false when there is none. preset_names(): "fp32, tf32, amp_fp16, amp_bf16, fp8".
bool precision_preset(const std::string& name, PrecisionPolicy& out);
std::string preset_names();
// Reads `precision` of a workload root map (absent: the fp32 preset).
PrecisionSpec parse_precision(ConfigMap& root);
// Why `hw` can run none of the options (empty when it can run one).
std::string precision_problem(const PrecisionSpec& p, const HardwareSpec& hw);
// The first option `hw` supports, resolved; a ConfigError at the workload's key when none.
Precision resolve_precision(const PrecisionSpec& p, const HardwareSpec& hw);
// Products, activations and gradients in `compute`, master weights and optimizer state fp32, at
// the array's geometry rate (speed 1): for models built in code, where no peak table exists.
Precision mixed_precision(DataType compute);

}  // namespace kp
