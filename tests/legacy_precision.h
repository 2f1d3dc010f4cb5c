#pragma once
// Tests written before precision policies: the chip's 16-bit product type where it has bf16, else
// fp32, for products, activations and gradients, master weights fp32, at the geometry's rate.
// This is exactly the former chip-wide bytes_per_element (2 on bf16 chips, 4 on the T4), so
// their hand-computed figures still hold.
#include "core/hw_spec.h"
#include "core/precision.h"

namespace kp {

inline Precision legacy_precision(const HardwareSpec& hw) {
  return mixed_precision(hw.array.peaks.supports(DataType::Bf16) ? DataType::Bf16 : DataType::Fp32);
}

}  // namespace kp
