#pragma once
// IDX files (LeCun's MNIST format), plain or gzip-compressed: a big-endian header
// {0, 0, type, ndims} then ndims uint32 dimensions, then the data. Only type 0x08 (unsigned byte)
// is read. Contract: read_idx() returns the dimensions and exactly prod(dims) bytes, or throws
// ConfigError naming the file (missing, not gzip/IDX, truncated, trailing or corrupt data).
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

IdxArray read_idx(const std::string& path);

}  // namespace kp
