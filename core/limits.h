#pragma once
// Plausibility limits of the inputs, stated in the errors that refuse them. Contract: every value
// read from YAML or the command line lies in these ranges, so that the models' products of sizes
// (GEMM dimensions x batch, parameters x bytes, chips x bytes) stay far inside int64 and finite
// doubles. Each limit is orders of magnitude above any real system or network of today.
#include <cstdint>

namespace kp::limits {

constexpr int64_t pow2(int k) { return int64_t{1} << k; }

// Hardware.
constexpr int64_t kArraySide = pow2(16);     // rows, cols of one systolic array (TPU: 128)
constexpr int64_t kUnitCount = pow2(16);     // arrays or vector units per chip
constexpr int64_t kLanes = pow2(20);         // vector lanes
constexpr int64_t kBytesPerElement = 16;     // fp128 is the widest format anyone trains in
constexpr int64_t kBanks = pow2(16);         // SRAM banks, DRAM channels
constexpr int64_t kLearners = pow2(24);      // chips of one system (16.7 M; the largest are ~10^5)
constexpr int64_t kDevicesPerNode = pow2(16);
constexpr int64_t kLinksPerChip = 64;
constexpr int64_t kChunks = pow2(16);
constexpr double kMinClockHz = 1e6, kMaxClockHz = 1e11;             // 1 MHz .. 100 GHz
constexpr double kMaxSramBytes = 1099511627776.0;                    // 1 TiB
constexpr double kMaxDramBytes = 64 * 1099511627776.0;               // 64 TiB
constexpr double kMaxBucketBytes = 1099511627776.0;                  // 1 TiB
constexpr double kMinBandwidth = 1e6, kMaxBandwidth = 1e16;          // 1 MB/s .. 10000 TB/s
constexpr double kMaxLatencyS = 10.0;
constexpr double kMaxEnergyJ = 1e-6;                                 // per MAC, byte or op
constexpr double kMaxChipHourUsd = 1e6;

// Workloads.
constexpr int64_t kChannels = pow2(20);      // input channels, filters, classes
constexpr int64_t kImageSide = pow2(16);     // input height or width
constexpr int64_t kUnits = pow2(24);         // dense units
constexpr int64_t kSequence = pow2(20);      // positions of a sequence input (1 M tokens)
constexpr int64_t kVocab = pow2(26);         // embedding rows (the largest recommenders ~10^7)
constexpr int64_t kHeads = pow2(12);         // attention heads
constexpr int64_t kWindow = pow2(10);        // kernel, stride
constexpr int64_t kRepeat = pow2(12);        // one repeat: block
constexpr int64_t kLayers = pow2(16);        // layers after expanding repeat: blocks
constexpr int64_t kTensorElements = pow2(32);  // one sample's tensor of any layer
constexpr int64_t kParams = pow2(40);        // parameters of the network (1.1 T)
constexpr int64_t kSteps = pow2(40);         // step budgets, schedules, evaluation intervals
constexpr int64_t kSamples = pow2(32);       // dataset sizes

// Grids and options.
constexpr int64_t kBatch = pow2(30);         // global batch, samples (the largest published ~10^6)

}  // namespace kp::limits
