#include "sim/scalesim/stall_model.h"

#include <algorithm>
#include <stdexcept>

namespace kp {

FoldTraffic fold_traffic(Dataflow dataflow, int64_t rows, int64_t cols, const GemmShape& gemm,
                         const DramInterfaceSpec& dram, int64_t fr, int64_t fc) {
  const FoldMapping map = fold_mapping(dataflow, gemm);
  const int64_t row_folds = (map.sr + rows - 1) / rows;
  const int64_t ru = std::min(rows, map.sr - fr * rows);
  const int64_t cu = std::min(cols, map.sc - fc * cols);
  // SCALE-Sim's active half-buffer (active_buf_frac = 0.5, rounded up) holds a whole operand.
  const bool ifmap_resident = gemm.m * gemm.k <= (dram.ifmap_sram_words + 1) / 2;
  const bool filter_resident = gemm.k * gemm.n <= (dram.filter_sram_words + 1) / 2;
  const bool first = fr == 0 && fc == 0;
  // Block sizes, and whether the block changed since the previous fold (fr is the inner loop).
  int64_t ifmap = 0, filter = 0;
  bool ifmap_changes = false, filter_changes = false;
  FoldTraffic t;
  switch (dataflow) {
    case Dataflow::OutputStationary:
      ifmap = ru * map.t, filter = map.t * cu, t.ofmap = ru * cu;
      ifmap_changes = row_folds > 1, filter_changes = fr == 0;
      break;
    case Dataflow::WeightStationary:
      ifmap = map.t * ru, filter = ru * cu, t.ofmap = map.t * cu;
      ifmap_changes = row_folds > 1, filter_changes = true;
      break;
    case Dataflow::InputStationary:
      ifmap = ru * cu, filter = ru * map.t, t.ofmap = map.t * cu;
      ifmap_changes = true, filter_changes = row_folds > 1;
      break;
  }
  t.ifmap_new = first || (ifmap_changes && !ifmap_resident) ? ifmap : 0;
  t.filter_new = first || (filter_changes && !filter_resident) ? filter : 0;
  return t;
}

StallEstimate estimate_dram_stalls(Dataflow dataflow, int64_t rows, int64_t cols, const GemmShape& gemm,
                                   const DramInterfaceSpec& dram) {
  if (dram.bandwidth_words_per_cycle < 1) throw std::invalid_argument("estimate_dram_stalls: bandwidth < 1");
  const FoldTiming ft = fold_timing(dataflow, rows, cols, gemm);
  const int64_t bw = dram.bandwidth_words_per_cycle;
  const int64_t ofmap_capacity = (dram.ofmap_sram_words + 1) / 2;
  StallEstimate est;
  int64_t prev_ofmap = 0, pending_ofmap = 0;
  for (int64_t fc = 0; fc < ft.col_folds; ++fc) {
    for (int64_t fr = 0; fr < ft.row_folds; ++fr) {
      const FoldTraffic t = fold_traffic(dataflow, rows, cols, gemm, dram, fr, fc);
      est.ifmap_words += t.ifmap_new;
      est.filter_words += t.filter_new;
      est.ofmap_words += t.ofmap;
      if (fr != 0 || fc != 0) {
        const int64_t fetch = (std::max(t.ifmap_new, t.filter_new) + bw - 1) / bw;
        const int64_t read_stall = std::max<int64_t>(0, fetch - ft.cycles_per_fold);
        // The previous fold's outputs join the write backlog; only an overflow of the active
        // half-buffer stalls, until enough has drained.
        pending_ofmap += prev_ofmap;
        const int64_t overflow = pending_ofmap - ofmap_capacity;
        const int64_t write_stall = overflow > 0 ? (overflow + bw - 1) / bw : 0;
        const int64_t stall = std::max(read_stall, write_stall);
        est.stall_cycles += stall;
        pending_ofmap = std::max<int64_t>(0, pending_ofmap - bw * (ft.cycles_per_fold + stall));
      }
      prev_ofmap = t.ofmap;
    }
  }
  return est;
}

}  // namespace kp
