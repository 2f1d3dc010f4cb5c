#pragma once
// SystemC model of one chip's systolic array fed by a double-buffered DMA engine (issue 3, first
// slice). Contract: with unlimited DRAM bandwidth every layer's cycles equal fold_timing()'s
// total_cycles (SCALE-Sim v2's Total Cycles); with a limited interface the stalls come from the
// simulated overlap of the DMA fetch of fold i with the compute of fold i-1 and from the ofmap write
// backlog, and track the analytic twin (estimate_dram_stalls) within a few percent.
//
// One elaboration per process (a SystemC limit): run_systolic_sc() elaborates one independent chip
// instance per job, runs all of them in a single sc_start() and must be called at most once per
// process. A sweep therefore batches its configurations into one call (or one forked worker per
// batch); the chips share no state, so results do not depend on how jobs are batched.
//
// Timing is loosely timed: one wait() per fold per thread (fill, stream and drain of a fold are one
// delay of cycles_per_fold), so the kernel cost is per tile, not per cycle.
#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "sim/fold_timing.h"

namespace kp {

struct ScChipConfig {
  int64_t rows = 0, cols = 0;
  int64_t arrays = 1;  // identical arrays; each wave runs `arrays` consecutive folds side by side
  Dataflow dataflow = Dataflow::OutputStationary;
  int64_t ifmap_sram_words = 0, filter_sram_words = 0, ofmap_sram_words = 0;
  int64_t dram_words_per_cycle = 0;  // per interface (ifmap, filter, ofmap); 0 = unlimited
};

struct ScJob {
  ScChipConfig chip;
  std::vector<GemmShape> layers;  // run back to back, each from a preloaded first fold
};

struct ScLayerResult {
  int64_t total_cycles = 0;  // SCALE-Sim convention: index of the last output cycle
  int64_t stall_cycles = 0;  // total_cycles - (ceil(folds / arrays) * cycles_per_fold - 1)
  int64_t folds = 0;
};

// Throws std::logic_error on a second call in the same process, std::invalid_argument on sizes < 1.
std::vector<std::vector<ScLayerResult>> run_systolic_sc(const std::vector<ScJob>& jobs);

}  // namespace kp
