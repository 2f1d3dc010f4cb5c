#include "sim/scalesim/memory_replay.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/int_math.h"
#include "sim/fold_timing.h"
#include "sim/scalesim/operand_stream.h"
#include "sim/scalesim/read_buffer_replay.h"
#include "sim/scalesim/write_buffer_replay.h"

namespace kp {
namespace {

// One operand's reads of one demand line through its buffer; returns the line's read delay.
int64_t serve_line(const OperandStream& stream, ReadBufferReplay& buf, std::vector<int64_t>& copies,
                   int64_t fr, int64_t fc, int64_t t, int64_t now) {
  const LineSpan span = stream.line(fr, fc, t);
  int64_t offset = 1;  // read_buffer hit latency
  if (span.count == 0) return 0;
  const int64_t lo = buf.set_of(span.first), hi = buf.set_of(span.first + span.count - 1);
  if (!stream.has_duplicates()) {
    // Words are served in position order, so set by set is the same walk.
    for (int64_t s = lo; s <= hi; ++s) buf.demand(s, now, offset);
    return offset - 1;
  }
  bool resident = true;
  for (int64_t s = lo; s <= hi && resident; ++s) resident = buf.in_window(s);
  if (resident) return 0;
  int64_t position = span.first;
  for (int64_t lane = span.lane0; lane < span.lane_end; ++lane) {
    const int64_t row = stream.row_of(span, lane);
    if (!stream.valid(row, lane)) continue;  // a null cell of a ragged ifmap: not demanded
    copies[0] = buf.set_of(position++);
    if (buf.in_window(copies[0])) continue;
    // read_buffer.active_buffer_hit: any copy in the window is a hit.
    if (stream.for_each_duplicate(row, lane, [&](int64_t p) { return buf.in_window(buf.set_of(p)); })) continue;
    const int n = stream.duplicates(row, lane, copies.data() + 1);
    for (int j = 1; j <= n; ++j) copies[j] = buf.set_of(copies[j]);
    buf.demand(copies.data(), n + 1, now, offset);
  }
  return offset - 1;
}

// Valid ofmap words of fold line t (compute/systolic_compute_*.py create_ofmap_demand_mat: os
// drains the R x C block skewed after T - 1 idle lines; ws/is write T rows skewed after 2R - 1).
int64_t ofmap_words(Dataflow d, int64_t rows, int64_t t, int64_t temporal, int64_t ru, int64_t cu) {
  int64_t lo = 0, hi = 0;
  if (d == Dataflow::OutputStationary) {
    const int64_t u = t - (temporal - 1);
    lo = std::max<int64_t>(0, u - rows + 1), hi = std::min(cu - 1, u - (rows - ru));
  } else {
    const int64_t u = t - (2 * rows - 1);
    lo = std::max<int64_t>(0, u - temporal + 1), hi = std::min(cu - 1, u);
  }
  return std::max<int64_t>(0, hi - lo + 1);
}

}  // namespace

StallEstimate replay_scalesim_memory(const ScaleSimConfig& config, const ScaleSimLayer& layer) {
  const Dataflow d = config.dataflow;
  const int64_t rows = config.array_height, cols = config.array_width, bw = config.bandwidth_words_per_cycle;
  const FoldTiming ft = fold_timing(d, rows, cols, layer.gemm);
  if (ft.total_cycles >= (int64_t{1} << 31) - 1) {
    throw std::invalid_argument("replay_scalesim_memory: the layer has 2^31 or more cycles");
  }
  const FoldMapping map = fold_mapping(d, layer.gemm);
  const OperandStream ifmap(d, OperandRole::Ifmap, rows, cols, layer);
  const OperandStream filter(d, OperandRole::Filter, rows, cols, layer);
  ReadBufferReplay ifmap_buf(config.ifmap_sram_kb * 1024, ifmap.words(), bw);
  ReadBufferReplay filter_buf(config.filter_sram_kb * 1024, filter.words(), bw);
  WriteBufferReplay ofmap_buf(config.ofmap_sram_kb * 1024, bw);
  std::vector<int64_t> copies(static_cast<size_t>(std::max(ifmap.max_duplicates(), filter.max_duplicates()) + 1));

  StallEstimate est;
  int64_t line = 0;
  for (int64_t fc = 0; fc < ft.col_folds; ++fc) {
    const int64_t cu = std::min(cols, map.sc - fc * cols);
    for (int64_t fr = 0; fr < ft.row_folds; ++fr) {
      const int64_t ru = std::min(rows, map.sr - fr * rows);
      for (int64_t t = 0; t < ft.cycles_per_fold; ++t, ++line) {
        const int64_t now = line + est.stall_cycles;
        const int64_t ifmap_stall = serve_line(ifmap, ifmap_buf, copies, fr, fc, t, now);
        const int64_t filter_stall = serve_line(filter, filter_buf, copies, fr, fc, t, now);
        const int64_t words = ofmap_words(d, rows, t, map.t, ru, cu);
        const int64_t ofmap_stall = words > 0 ? ofmap_buf.write_line(now, words) : 0;
        est.ofmap_words += words;
        est.stall_cycles += std::max({ifmap_stall, filter_stall, ofmap_stall});
      }
    }
  }
  est.ifmap_words = ifmap_buf.fetched_words();
  est.filter_words = filter_buf.fetched_words();
  return est;
}

}  // namespace kp
