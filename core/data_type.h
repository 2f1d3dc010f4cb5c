#pragma once
// Numeric data types of training and a compute unit's peak rate per type. Contract: a type's
// storage width is fixed (tf32 is a matmul input format stored as fp32, Micikevicius et al. /
// NVIDIA A100 whitepaper 2020); a TypePeaks entry of 0 means the unit does not support the type.
#include <cstdint>
#include <string>

namespace kp {

enum class DataType { Fp32, Tf32, Fp16, Bf16, Fp8, Int8 };
constexpr int kDataTypes = 6;

const char* data_type_name(DataType t);  // "fp32", "tf32", "fp16", "bf16", "fp8", "int8"
// The type named `name`; false when there is none.
bool parse_data_type(const std::string& name, DataType& out);
std::string data_type_names();  // "fp32, tf32, fp16, bf16, fp8, int8"
// Bytes one element occupies in memory, on the wire and in SRAM: 4, 4, 2, 2, 1, 1.
int64_t storage_bytes(DataType t);
// tf32 exists only as the input format of a product: no tensor is held in it.
inline bool is_storage_type(DataType t) { return t != DataType::Tf32; }

// Dense peak of one kind of unit (all of its instances together), per type, in FLOP/s (OP/s
// for int8); 0 = not supported.
struct TypePeaks {
  double flops_per_s[kDataTypes] = {};
  double peak(DataType t) const { return flops_per_s[static_cast<int>(t)]; }
  bool supports(DataType t) const { return peak(t) > 0; }
  std::string supported_names() const;  // "bf16, fp16" (empty when none)
};

}  // namespace kp
