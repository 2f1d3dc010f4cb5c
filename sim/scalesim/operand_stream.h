#pragma once
// Where SCALE-Sim v2 puts one read operand (ifmap or filter) in its prefetch order, and which of
// those words each demand line asks for (scalesim-project/scale-sim-v2 @ 22f88b1,
// compute/systolic_compute_{os,ws,is}.py, compute/operand_matrix.py; Samajdar et al., "A
// systematic methodology for characterizing scalability of DNN accelerators using SCALE-Sim",
// ISPASS 2020).
//
// Contract: position() numbers the operand's words 0..words()-1 in the order SCALE-Sim's read
// buffer fetches them (its prefetch matrix, flattened, null entries dropped); line() returns the
// cells a demand line of fold (fr, fc) reads, whose positions are one ascending contiguous run;
// for_each_duplicate() visits the other positions holding the same address (an im2col ifmap
// repeats the input pixels that overlapping windows share).
//
// Two layouts cover every dataflow. The operand is cut into B blocks (one per row or column fold)
// of T rows x W lanes (the last block has `last_lanes` valid lanes):
//   Diagonal: the blocks are stacked into a (B*T) x W matrix read anti-diagonal by anti-diagonal
//     (row descending); fold line t reads diagonal b*T + t - lead of its block b, lanes ascending.
//     os ifmap (T=K, lanes = rows of M), os filter (T=K, lanes = N), ws ifmap (T=M, lanes = K,
//     lead R), is filter (T=N, lanes = K, lead R).
//   RowBlock: the blocks are stacked and read row-major; fold line t < R reads row
//     fr*R + R-1-t of its block b = fc. ws filter (T=K, lanes = N), is ifmap (T=K, lanes = M).
// Ragged ifmaps: SCALE-Sim sizes the ofmap as ceil((H - FH + S) / S), one row (column) more than
// fits when S does not divide H - FH; that row's windows reach past the ifmap and those im2col
// cells are null (-1), neither fetched nor demanded. Only that last row's and column's windows
// have nulls; their positions are listed once (O((OH + OW) * K) at construction), and a valid
// cell's position is its closed form less the nulls before it (a binary search).
// Cost: constant time per call (O(log nulls) for a ragged ifmap); no allocation after construction.
#include <cstdint>
#include <vector>

#include "core/hw_spec.h"
#include "sim/scalesim/topology.h"

namespace kp {

enum class OperandRole { Ifmap, Filter };

// The cells one demand line reads, lanes [lane0, lane_end): `count` valid ones at positions
// first, first+1, ..., first+count-1. The cell of lane l is row_of(span, l).
struct LineSpan {
  int64_t first = 0, count = 0;
  int64_t row0 = 0, lane0 = 0, lane_end = 0;  // row0: the row (within the stacked matrix) of lane0
};

class OperandStream {
 public:
  // rows x cols array; layer gives the GEMM and, for copies and null cells, the conv geometry.
  OperandStream(Dataflow dataflow, OperandRole role, int64_t rows, int64_t cols, const ScaleSimLayer& layer);

  int64_t words() const { return m_words; }
  int64_t position(int64_t row, int64_t lane) const;
  LineSpan line(int64_t fr, int64_t fc, int64_t t) const;
  int64_t row_of(const LineSpan& s, int64_t lane) const {
    return m_layout == Layout::Diagonal ? s.row0 - (lane - s.lane0) : s.row0;
  }
  bool ragged() const { return m_ragged; }
  // False for SCALE-Sim's null cells of a ragged ifmap (lane within the block's valid lanes).
  bool valid(int64_t row, int64_t lane) const;
  bool has_duplicates() const { return m_dups; }
  int max_duplicates() const { return m_max_dups; }
  // Calls stop(position) for each other copy of cell (row, lane) until it returns true; returns
  // whether it did (the caller's hit test ends at the first resident copy).
  template <class Stop>
  bool for_each_duplicate(int64_t row, int64_t lane, Stop&& stop) const;
  // Writes the positions of the other copies into out (room for max_duplicates()), returns how many.
  int duplicates(int64_t row, int64_t lane, int64_t* out) const {
    int n = 0;
    for_each_duplicate(row, lane, [&](int64_t p) { out[n++] = p; return false; });
    return n;
  }

 private:
  enum class Layout { Diagonal, RowBlock };
  int64_t lanes_of(int64_t block) const { return block == m_blocks - 1 ? m_last_lanes : m_lanes; }
  int64_t lanes_of_row(int64_t row) const { return lanes_of(row / m_block_rows); }
  void im2col(int64_t row, int64_t lane, int64_t& m, int64_t& k) const {
    const int64_t lane_index = (row / m_block_rows) * m_lanes + lane, within = row % m_block_rows;
    m = m_lane_is_m ? lane_index : within, k = m_lane_is_m ? within : lane_index;
  }
  int64_t closed_form_position(int64_t row, int64_t lane) const;  // as if no cell were null
  void build_null_positions();
  int64_t nulls_before(int64_t closed_form) const;

  Layout m_layout = Layout::Diagonal;
  bool m_by_row_fold = true;  // the block index is the row fold (else the column fold)
  int64_t m_array_rows = 1;
  int64_t m_blocks = 1, m_block_rows = 1, m_lanes = 1, m_last_lanes = 1, m_lead = 0;
  int64_t m_words = 0;
  // Conv geometry of an ifmap: lane index = M (output pixel) or K (window element).
  bool m_dups = false, m_ragged = false, m_lane_is_m = true;
  int m_max_dups = 0;
  int64_t m_ih = 1, m_iw = 1, m_oh = 1, m_ow = 1, m_fh = 1, m_fw = 1, m_ch = 1, m_stride = 1;
  std::vector<int64_t> m_null_positions;  // ragged: closed-form positions of the null cells, sorted
};

template <class Stop>
bool OperandStream::for_each_duplicate(int64_t row, int64_t lane, Stop&& stop) const {
  if (!m_dups) return false;
  int64_t m = 0, k = 0;
  im2col(row, lane, m, k);
  // SCALE-Sim's im2col (operand_matrix.py): k = (fy * FW + fx) * C + ch reads input pixel
  // (oy * S + fy, ox * S + fx); every other (oy', fy', ox', fx') on the same pixel is a copy.
  const int64_t oy = m / m_ow, ox = m % m_ow, fy = k / (m_fw * m_ch), fx = (k / m_ch) % m_fw, ch = k % m_ch;
  const int64_t iy = oy * m_stride + fy, ix = ox * m_stride + fx;
  const int64_t T = m_block_rows, W = m_lanes;
  for (int64_t fy2 = iy % m_stride; fy2 < m_fh && fy2 <= iy; fy2 += m_stride) {
    const int64_t oy2 = (iy - fy2) / m_stride;
    if (oy2 >= m_oh) continue;
    for (int64_t fx2 = ix % m_stride; fx2 < m_fw && fx2 <= ix; fx2 += m_stride) {
      const int64_t ox2 = (ix - fx2) / m_stride;
      if (ox2 >= m_ow || (fy2 == fy && fx2 == fx)) continue;
      const int64_t m2 = oy2 * m_ow + ox2, k2 = (fy2 * m_fw + fx2) * m_ch + ch;
      const int64_t lane_index2 = m_lane_is_m ? m2 : k2, within2 = m_lane_is_m ? k2 : m2;
      if (stop(position((lane_index2 / W) * T + within2, lane_index2 % W))) return true;
    }
  }
  return false;
}

}  // namespace kp
