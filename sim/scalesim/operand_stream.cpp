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
  if (ifmap) {
    m_ih = layer.ifmap_h, m_iw = layer.ifmap_w, m_fh = layer.filter_h, m_fw = layer.filter_w;
    m_ch = layer.channels, m_stride = layer.stride;
    m_oh = scalesim_ofmap_size(m_ih, m_fh, m_stride), m_ow = scalesim_ofmap_size(m_iw, m_fw, m_stride);
    // Overlapping conv windows read one input pixel from several im2col cells.
    m_dups = (m_fh > m_stride && m_oh > 1) || (m_fw > m_stride && m_ow > 1);
    m_max_dups = m_dups ? static_cast<int>(ceil_div(m_fh, m_stride) * ceil_div(m_fw, m_stride) - 1) : 0;
    m_ragged = (m_ih - m_fh) % m_stride != 0 || (m_iw - m_fw) % m_stride != 0;
    if (m_ragged) build_null_positions();
  }
}

bool OperandStream::valid(int64_t row, int64_t lane) const {
  if (!m_ragged) return true;
  int64_t m = 0, k = 0;
  im2col(row, lane, m, k);
  const int64_t fy = k / (m_fw * m_ch), fx = (k / m_ch) % m_fw;
  return (m / m_ow) * m_stride + fy < m_ih && (m % m_ow) * m_stride + fx < m_iw;
}

void OperandStream::build_null_positions() {
  // Only windows of the last output row or column reach past the ifmap; list their null cells by
  // the position they would have, sorted, so a valid cell's position is its closed form less the
  // nulls before it.
  const int64_t pixels = m_oh * m_ow, window = m_fh * m_fw * m_ch;
  for (int64_t m = 0; m < pixels; ++m) {
    const int64_t oy = m / m_ow, ox = m % m_ow;
    if (oy != m_oh - 1 && ox != m_ow - 1) continue;
    for (int64_t k = 0; k < window; ++k) {
      const int64_t fy = k / (m_fw * m_ch), fx = (k / m_ch) % m_fw;
      if (oy * m_stride + fy < m_ih && ox * m_stride + fx < m_iw) continue;
      const int64_t lane_index = m_lane_is_m ? m : k, within = m_lane_is_m ? k : m;
      m_null_positions.push_back(closed_form_position((lane_index / m_lanes) * m_block_rows + within, lane_index % m_lanes));
    }
  }
  std::sort(m_null_positions.begin(), m_null_positions.end());
  m_words -= static_cast<int64_t>(m_null_positions.size());
}

int64_t OperandStream::nulls_before(int64_t closed_form) const {
  return std::lower_bound(m_null_positions.begin(), m_null_positions.end(), closed_form) - m_null_positions.begin();
}

int64_t OperandStream::position(int64_t row, int64_t lane) const {
  const int64_t p = closed_form_position(row, lane);
  return m_ragged ? p - nulls_before(p) : p;
}

int64_t OperandStream::closed_form_position(int64_t row, int64_t lane) const {
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
  const int64_t block = m_by_row_fold ? fr : fc;
  const int64_t T = m_block_rows, lanes = lanes_of(block);
  if (m_layout == Layout::RowBlock) {
    const int64_t within = fr * m_array_rows + m_array_rows - 1 - t;  // rows enter flipped
    if (t >= m_array_rows || within >= T) return s;
    s.row0 = block * T + within, s.lane0 = 0, s.lane_end = lanes;
  } else {
    const int64_t u = t - m_lead;  // skewed: lane r reads row u - r of the block
    const int64_t lo = std::max<int64_t>(0, u - T + 1), hi = std::min(lanes - 1, u);
    if (u < 0 || lo > hi) return s;
    s.row0 = block * T + u - lo, s.lane0 = lo, s.lane_end = hi + 1;
  }
  // The line's cells are consecutive in the closed-form order; a ragged ifmap drops its nulls.
  const int64_t cells = s.lane_end - s.lane0, p = closed_form_position(s.row0, s.lane0);
  if (!m_ragged) {
    s.count = cells, s.first = p;
    return s;
  }
  const int64_t before = nulls_before(p);
  s.count = cells - (nulls_before(p + cells) - before);
  s.first = p - before;
  return s;
}

}  // namespace kp
