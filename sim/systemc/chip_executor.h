#pragma once
// The SystemC chip (issue 3): systolic arrays and vector units (ScComputeUnit), SRAM (ScSram),
// DRAM/HBM with channels (ScDram) and a DMA engine (ScDma), driven by an executor thread that runs
// a training step's ops, one after the other, as tile transactions. Contract: every op is cut into
// the tiles of sim/tile_plan.h (the twin's tiles); tile 0's operands are fetched first, then while
// tile t computes the DMA writes tile t-1's outputs and fetches tile t+1's operands; tile t+1 starts
// when both the array and the DMA are done (a stall when the fetch is late); the op ends when its
// last outputs are in DRAM.
//
// Loosely timed TLM-2.0 with temporal decoupling: the executor runs ahead of the kernel with a
// tlm_quantumkeeper and synchronises when the local time passes the global quantum; every module
// keeps its state in absolute time (issue time = sc_time_stamp() + annotated delay), so the results
// do not depend on the quantum (tested). The kernel cost is a few function calls per tile, not a
// context switch per cycle. The time resolution is 1 fs.
//
// One elaboration per process (a SystemC limit): run_chip_sc() elaborates one independent chip per
// run, simulates them in one sc_start() and must be called at most once per process;
// run_chip_sc_pool() spreads runs over forked workers (every workers-th run each, so long and short
// runs mix), so that any process may call it again and a sweep of many configurations pays one
// elaboration per worker. This is the path every multi-point command uses for the systemc fidelity.
#include <cstdint>
#include <string>
#include <vector>

#include "core/hw_spec.h"
#include "core/lowering.h"

namespace kp {

struct ScOp {
  bool gemm = true;
  GemmDims g;                      // GEMM
  double a_unique_fraction = 1.0;  // GEMM: see Op
  double out_fraction = 1.0;       // GEMM: see Op
  double elements = 0, ops_per_element = 1, tensors_moved = 2;  // elementwise
  int64_t bytes_per_element = 2;
  double array_speed = 1.0;        // GEMM: TilePlan::gemm's array_speed (the operands' type)
  bool overlaps = true;            // a collective may run beside it (forward, backward; not the optimizer)
  // Runs with collectives only: the op's kernel launch (step_profile.h), so that the executor's
  // timeline, where the collectives start, is the profile's; ScOpResult::seconds leaves it out.
  double launch_s = 0;
};

// A gradient bucket's all-reduce beside the ops (issue 35, hardware interconnect.overlap): it starts
// when op `ready_op` has ended and the collective before has ended, lasts `seconds` (from the
// SystemC interconnect) and moves `dram_bytes` through this chip's DRAM channels at an even rate,
// holding 1 - collective_units_left of the units meanwhile. The executor issues its traffic on the
// same ScDram as the tiles' DMA, before each tile's own, so they contend there.
struct ScCollective {
  int64_t ready_op = 0;
  double seconds = 0, dram_bytes = 0;
};

struct ScOpResult {
  double seconds = 0, compute_s = 0, stall_s = 0;  // stall_s = seconds - compute_s
  double unit_cycles = 0;                         // array or vector cycles, without stalls
  double dram_read_bytes = 0, dram_write_bytes = 0, sram_bytes = 0;  // counted by the targets
  double macs = 0, vector_ops = 0, tiles = 0;
};

struct ScChipRun {
  HardwareSpec hw;
  std::vector<ScOp> ops;
  std::vector<std::string> op_names;  // trace labels (may be empty)
  double quantum_s = 1e-6;            // tlm_global_quantum (one per process: the first run's)
  std::string trace_path;             // Chrome trace-event JSON when not empty
  std::vector<ScCollective> collectives;  // in start order; empty: the ops run alone
  double collective_units_left = 1.0;
};

std::vector<std::vector<ScOpResult>> run_chip_sc(const std::vector<ScChipRun>& runs);
// workers >= 1 (capped at runs.size()); results in run order.
std::vector<std::vector<ScOpResult>> run_chip_sc_pool(const std::vector<ScChipRun>& runs, int workers);
std::vector<ScOpResult> run_chip_sc_forked(const ScChipRun& run);  // a pool of one

}  // namespace kp
