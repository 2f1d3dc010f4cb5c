#include "core/data_type.h"

namespace kp {
namespace {

constexpr const char* kNames[kDataTypes] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
constexpr int64_t kBytes[kDataTypes] = {4, 4, 2, 2, 1, 1};

}  // namespace

const char* data_type_name(DataType t) { return kNames[static_cast<int>(t)]; }

bool parse_data_type(const std::string& name, DataType& out) {
  for (int i = 0; i < kDataTypes; ++i)
    if (name == kNames[i]) {
      out = static_cast<DataType>(i);
      return true;
    }
  return false;
}

std::string data_type_names() {
  std::string s;
  for (int i = 0; i < kDataTypes; ++i) s += std::string(i ? ", " : "") + kNames[i];
  return s;
}

int64_t storage_bytes(DataType t) { return kBytes[static_cast<int>(t)]; }

std::string TypePeaks::supported_names() const {
  std::string s;
  for (int i = 0; i < kDataTypes; ++i)
    if (flops_per_s[i] > 0) s += std::string(s.empty() ? "" : ", ") + kNames[i];
  return s;
}

}  // namespace kp
