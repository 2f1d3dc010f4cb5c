#include "sim/scalesim/operand_stream.h"

#include <algorithm>

#include "core/int_math.h"

namespace kp {
namespace {

// sum_{v=1..n} min(v, h), 0 for n <= 0.
int64_t ramp_sum(int64_t n, int64_t h) {
  if (n <= 0) return 0;
  if (n <= h) return n * (n + 1) / 2;
  return h * (h + 1) / 2 + (n - h) * h;
}

// Cells (r, c) of an h x w matrix with r + c < x: sum_{c<w} clamp(x - c, 0, h).
int64_t cells_before_diagonal(int64_t x, int64_t h, int64_t w) {
  if (w <= 0) return 0;
  return ramp_sum(x, h) - ramp_sum(x - w, h);
}

}  // namespace

OperandStream::OperandStream(Dataflow dataflow, OperandRole role, int64_t rows, int64_t cols,
                             const ScaleSimLayer& layer)
    : m_array_rows(rows) {
  const GemmShape& g = layer.gemm;
  const bool ifmap = role == OperandRole::Ifmap;
  // Which fold cuts the operand (spatial extent split over `lanes` array rows/cols) and how long
  // each block is.
  int64_t extent = 0;
  switch (dataflow) {
    case Dataflow::OutputStationary:
      m_layout = Layout::Diagonal;
      m_by_row_fold = ifmap;
      extent = ifmap ? g.m : g.n, m_lanes = ifmap ? rows : cols, m_block_rows = g.k;
      m_lane_is_m = true;
      break;
    case Dataflow::WeightStationary:
      m_layout = ifmap ? Layout::Diagonal : Layout::RowBlock;
      m_by_row_fold = ifmap;
      extent = ifmap ? g.k : g.n, m_lanes = ifmap ? rows : cols, m_block_rows = ifmap ? g.m : g.k;
      m_lead = ifmap ? rows : 0;
      m_lane_is_m = false;
      break;
    case Dataflow::InputStationary:
      m_layout = ifmap ? Layout::RowBlock : Layout::Diagonal;
      m_by_row_fold = !ifmap;
      extent = ifmap ? g.m : g.k, m_lanes = ifmap ? cols : rows, m_block_rows = ifmap ? g.k : g.n;
      m_lead = ifmap ? 0 : rows;
      m_lane_is_m = true;
      break;
  }
  m_blocks = ceil_div(extent, m_lanes);
  m_last_lanes = extent - (m_blocks - 1) * m_lanes;
  m_words = extent * m_block_rows;
  // Overlapping conv windows read one input pixel from several im2col cells.
  if (ifmap) {
    m_oh = scalesim_ofmap_size(layer.ifmap_h, layer.filter_h, layer.stride);
    m_ow = scalesim_ofmap_size(layer.ifmap_w, layer.filter_w, layer.stride);
    m_fh = layer.filter_h, m_fw = layer.filter_w, m_ch = layer.channels, m_stride = layer.stride;
    m_dups = (m_fh > m_stride && m_oh > 1) || (m_fw > m_stride && m_ow > 1);
    m_max_dups = m_dups ? static_cast<int>(ceil_div(m_fh, m_stride) * ceil_div(m_fw, m_stride) - 1) : 0;
  }
}

int64_t OperandStream::position(int64_t row, int64_t lane) const {
  const int64_t T = m_block_rows, W = m_lanes, wu = m_last_lanes, tail = (m_blocks - 1) * T;
  if (m_layout == Layout::RowBlock) {
    return row < tail ? row * W + lane : tail * W + (row - tail) * wu + lane;
  }
  // Diagonal: valid cells on earlier anti-diagonals, then those before `lane` on this one; the
  // null lanes of the last block (lane >= wu) are not fetched and take no position.
  const int64_t d = row + lane, rows_all = m_blocks * T;
  const int64_t before = cells_before_diagonal(d, rows_all, W) - cells_before_diagonal(d - tail - wu, T, W - wu);
  const int64_t lane_min = std::max<int64_t>(0, d - rows_all + 1);
  const int64_t null_here = std::max<int64_t>(0, std::min({lane - 1, d - tail, W - 1}) - std::max(wu, lane_min) + 1);
  return before + (lane - lane_min) - null_here;
}

LineSpan OperandStream::line(int64_t fr, int64_t fc, int64_t t) const {
  LineSpan s;
  s.block = m_by_row_fold ? fr : fc;
  const int64_t T = m_block_rows, lanes = lanes_of(s.block);
  if (m_layout == Layout::RowBlock) {
    const int64_t within = fr * m_array_rows + m_array_rows - 1 - t;  // rows enter flipped
    if (t >= m_array_rows || within >= T) return s;
    s.row0 = s.block * T + within, s.lane0 = 0, s.count = lanes;
  } else {
    const int64_t u = t - m_lead;  // skewed: lane r reads row u - r of the block
    const int64_t lo = std::max<int64_t>(0, u - T + 1), hi = std::min(lanes - 1, u);
    if (u < 0 || lo > hi) return s;
    s.row0 = s.block * T + u - lo, s.lane0 = lo, s.count = hi - lo + 1;
  }
  s.first = position(s.row0, s.lane0);
  return s;
}

}  // namespace kp
