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
    if (m_ragged) build_valid_prefix();
  }
}

bool OperandStream::valid(int64_t row, int64_t lane) const {
  if (!m_ragged) return true;
  int64_t m = 0, k = 0;
  im2col(row, lane, m, k);
  const int64_t fy = k / (m_fw * m_ch), fx = (k / m_ch) % m_fw;
  return (m / m_ow) * m_stride + fy < m_ih && (m % m_ow) * m_stride + fx < m_iw;
}

void OperandStream::build_valid_prefix() {
  const int64_t rows_all = m_blocks * m_block_rows;
  const bool diag = m_layout == Layout::Diagonal;
  const int64_t n = diag ? rows_all + m_lanes - 1 : rows_all;
  m_valid_before.assign(static_cast<size_t>(n + 1), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t count = 0;
    if (diag) {
      for (int64_t lane = std::max<int64_t>(0, i - rows_all + 1); lane <= std::min(i, m_lanes - 1); ++lane) {
        count += lane < lanes_of_row(i - lane) && valid(i - lane, lane);
      }
    } else {
      for (int64_t lane = 0; lane < lanes_of_row(i); ++lane) count += valid(i, lane);
    }
    m_valid_before[static_cast<size_t>(i + 1)] = m_valid_before[static_cast<size_t>(i)] + count;
  }
  m_words = m_valid_before.back();
}

int64_t OperandStream::position(int64_t row, int64_t lane) const {
  if (!m_ragged) return closed_form_position(row, lane);
  if (m_layout == Layout::RowBlock) {
    int64_t p = m_valid_before[static_cast<size_t>(row)];
    for (int64_t l = 0; l < lane; ++l) p += valid(row, l);
    return p;
  }
  const int64_t d = row + lane;
  int64_t p = m_valid_before[static_cast<size_t>(d)];
  for (int64_t l = std::max<int64_t>(0, d - m_blocks * m_block_rows + 1); l < lane; ++l) {
    p += l < lanes_of_row(d - l) && valid(d - l, l);
  }
  return p;
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
  if (!m_ragged) {
    s.count = s.lane_end - s.lane0;
    s.first = position(s.row0, s.lane0);
    return s;
  }
  int64_t first_lane = -1;
  for (int64_t l = s.lane0; l < s.lane_end; ++l) {
    if (!valid(row_of(s, l), l)) continue;
    if (first_lane < 0) first_lane = l;
    ++s.count;
  }
  if (s.count > 0) s.first = position(row_of(s, first_lane), first_lane);
  return s;
}

}  // namespace kp
