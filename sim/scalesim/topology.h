#pragma once
// SCALE-Sim v2 topology CSVs as plain layer records. Contract: every layer returned is validated
// (all sizes >= 1, filter no larger than the ifmap) and carries its GEMM view; problems are
// reported together in one ConfigError with file:line:col.
//   conv (-i conv): Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
//                   Num Filter, Strides,   (no padding field: IFMAP sizes include any padding)
//   gemm (-i gemm): Layer, M, N, K,
// The first line is a header and is skipped, as SCALE-Sim does; a trailing comma is allowed.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "sim/fold_timing.h"

namespace kp {

enum class TopologyFormat { Conv, Gemm };

struct ScaleSimLayer {
  std::string name;
  int line = 0;  // where it was read, for messages
  // conv view (a GEMM row is read as a 1 x K "ifmap" with a 1 x K filter, as SCALE-Sim does)
  int64_t ifmap_h = 1, ifmap_w = 1, filter_h = 1, filter_w = 1, channels = 1, num_filters = 1,
          stride = 1;
  GemmShape gemm{1, 1, 1};  // M = ofmap pixels, N = filters, K = FH*FW*Cin
};

// ofmap size per SCALE-Sim (topology_utils.py): ceil((H - FH + S) / S).
int64_t scalesim_ofmap_size(int64_t ifmap, int64_t filter, int64_t stride);

std::vector<ScaleSimLayer> parse_scalesim_topology(std::istream& in, const std::string& origin,
                                                   TopologyFormat format);
std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path, TopologyFormat format);

}  // namespace kp
