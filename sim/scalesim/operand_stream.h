#pragma once
// Where SCALE-Sim v2 puts one read operand (ifmap or filter) in its prefetch order, and which of
// those words each demand line asks for (scalesim-project/scale-sim-v2 @ 22f88b1,
// compute/systolic_compute_{os,ws,is}.py; Samajdar et al., "A systematic methodology for
// characterizing scalability of DNN accelerators using SCALE-Sim", ISPASS 2020).
//
// Contract: position() numbers the operand's words 0..words()-1 in the order SCALE-Sim's read
// buffer fetches them (its prefetch matrix, flattened, null entries dropped); line() returns the
// positions a demand line of fold (fr, fc) reads, which are always one ascending contiguous run;
// duplicates() lists the other positions holding the same address (an im2col ifmap repeats the
// input pixels that overlapping windows share). Constant time per call, no allocation.
//
// Two layouts cover every dataflow. The operand is cut into B blocks (one per row or column fold)
// of T rows x W lanes (the last block has `last_lanes` valid lanes):
//   Diagonal: the blocks are stacked into a (B*T) x W matrix read anti-diagonal by anti-diagonal
//     (row descending); fold line t reads diagonal b*T + t - lead of its block b, lanes ascending.
//     os ifmap (T=K, lanes = rows of M), os filter (T=K, lanes = N), ws ifmap (T=M, lanes = K,
//     lead R), is filter (T=N, lanes = K, lead R).
//   RowBlock: the blocks are stacked and read row-major; fold line t < R reads row
//     fr*R + R-1-t of its block b = fc. ws filter (T=K, lanes = N), is ifmap (T=K, lanes = M).
#include <cstdint>

#include "core/hw_spec.h"
#include "sim/scalesim/topology.h"

namespace kp {

enum class OperandRole { Ifmap, Filter };

// The positions one demand line reads: first, first+1, ..., first+count-1.
struct LineSpan {
  int64_t first = 0, count = 0;
  int64_t block = 0, row0 = 0, lane0 = 0;  // matrix cell of `first` (row within the stacked matrix)
};

class OperandStream {
 public:
  // rows x cols array; layer gives the GEMM and, for duplicates, the conv geometry.
  OperandStream(Dataflow dataflow, OperandRole role, int64_t rows, int64_t cols, const ScaleSimLayer& layer);

  int64_t words() const { return m_words; }
  int64_t position(int64_t row, int64_t lane) const;
  LineSpan line(int64_t fr, int64_t fc, int64_t t) const;
  bool has_duplicates() const { return m_dups; }
  // Writes the positions of the other copies of element i of span into out (room for
  // max_duplicates()), returns how many.
  int duplicates(const LineSpan& span, int64_t i, int64_t* out) const {
    int n = 0;
    for_each_duplicate(span, i, [&](int64_t p) { out[n++] = p; return false; });
    return n;
  }
  // Calls stop(position) for each other copy of element i of span until it returns true; returns
  // whether it did (the caller's hit test ends at the first resident copy).
  template <class Stop>
  bool for_each_duplicate(const LineSpan& span, int64_t i, Stop&& stop) const;
  int max_duplicates() const { return m_max_dups; }

 private:
  enum class Layout { Diagonal, RowBlock };
  int64_t lanes_of(int64_t block) const { return block == m_blocks - 1 ? m_last_lanes : m_lanes; }

  Layout m_layout = Layout::Diagonal;
  bool m_by_row_fold = true;  // the block index is the row fold (else the column fold)
  int64_t m_array_rows = 1;
  int64_t m_blocks = 1, m_block_rows = 1, m_lanes = 1, m_last_lanes = 1, m_lead = 0;
  int64_t m_words = 0;
  // Duplicates (ifmap of a conv): lane index = M (output pixel) or K (window element).
  bool m_dups = false, m_lane_is_m = true;
  int m_max_dups = 0;
  int64_t m_oh = 1, m_ow = 1, m_fh = 1, m_fw = 1, m_ch = 1, m_stride = 1;
};

template <class Stop>
bool OperandStream::for_each_duplicate(const LineSpan& span, int64_t i, Stop&& stop) const {
  if (!m_dups) return false;
  const int64_t row = m_layout == Layout::Diagonal ? span.row0 - i : span.row0, lane = span.lane0 + i;
  const int64_t T = m_block_rows, W = m_lanes;
  const int64_t lane_index = (row / T) * W + lane, within = row % T;
  const int64_t m = m_lane_is_m ? lane_index : within, k = m_lane_is_m ? within : lane_index;
  // SCALE-Sim's im2col (operand_matrix.py): k = (fy * FW + fx) * C + ch reads input pixel
  // (oy * S + fy, ox * S + fx); every other (oy', fy', ox', fx') on the same pixel is a copy.
  const int64_t oy = m / m_ow, ox = m % m_ow, fy = k / (m_fw * m_ch), fx = (k / m_ch) % m_fw, ch = k % m_ch;
  const int64_t iy = oy * m_stride + fy, ix = ox * m_stride + fx;
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
