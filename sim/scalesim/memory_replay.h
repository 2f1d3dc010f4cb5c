#pragma once
// SCALE-Sim v2's USER-bandwidth memory system replayed for one layer (memory/
// double_buffered_scratchpad_mem.py @ 22f88b1; Samajdar et al., "A systematic methodology for
// characterizing scalability of DNN accelerators using SCALE-Sim", ISPASS 2020).
//
// Contract: returns the Stall Cycles SCALE-Sim reports for the layer (Total Cycles is then
// fold_timing().total_cycles + stall_cycles). SCALE-Sim walks the fold's demand lines one cycle
// each; a line starts at its index plus the stalls so far, the ifmap and filter read buffers
// (read_buffer_replay.h) and the ofmap write buffer (write_buffer_replay.h) each delay it, and the
// line stalls by the largest delay. This walks the same lines with each line's reads as a
// contiguous run of prefetch positions (operand_stream.h), so it is exact up to SCALE-Sim's own
// arithmetic, including conv ifmaps whose repeated pixels hit in older sets.
//
// Cost: O(folds x cycles_per_fold) = O(CALC Total Cycles) steps of a few integer operations, plus
// one step per window advance; a conv ifmap line that misses also looks up each word's copies
// (O(log nulls) each for a ragged ifmap, operand_stream.h). Measured on a 128x128 array, 1 MiB
// SRAMs, 10 words/cycle, os/ws/is: ResNet-18 0.04-0.13 s, AlexNet 0.02-0.21 s; a 4096^3 GEMM on
// 32x32 os (68 M lines) 4 s. (SCALE-Sim ran 35 lines/s on one 37 k-line held-out conv.)
// Allocation: the buffers' state and a ragged ifmap's list of null cells (at most (OH + OW) x K
// entries), once per layer; none per line.
#include "sim/scalesim/scalesim_config.h"
#include "sim/scalesim/stall_model.h"
#include "sim/scalesim/topology.h"

namespace kp {

// config must be USER mode with SRAMs of >= 1 KiB and bandwidth >= 1 (as read_scalesim_config()
// validates), and the layer under 2^31 stall-free cycles, so that position sums stay within
// int64 (std::invalid_argument otherwise; `kneepoint scalesim` refuses runs over 2^30 first).
// The DRAM word counts are the words the read windows and write drains moved.
StallEstimate replay_scalesim_memory(const ScaleSimConfig& config, const ScaleSimLayer& layer);

}  // namespace kp
