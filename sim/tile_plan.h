#pragma once
// The one memory/traffic model of a chip, shared by the SystemC executor and the analytic twin:
// how an op is cut into tiles that fit the on-chip SRAM, what each tile moves to and from DRAM,
// and how long each tile computes. Contract: both fidelities walk exactly these tiles; they differ
// only in how the tile pipeline is timed (events and DRAM channels in SystemC, a loop without
// events in the twin). Everything here is closed form per tile; no allocation.
//
// GEMM C[M,N] = A[M,K] * B[K,N] (SCALE-Sim's mapping, core/lowering.h). Tiles (tm, tn, tk) are
// walked N-tile outer, M-tile middle, K-tile inner; partial sums stay in SRAM until the last K tile
// writes the output tile. SRAM footprint with double buffering of every operand:
//   2 * (tm*tk + tk*tn + tm*tn) words <= capacity / bytes_per_element (the products' type).
// Tile choice (the classic blocking argument, Hong & Kung 1981), among the candidates that fit:
// whole K and N (A read once, B once per N tile); whole K with square output tiles; cube tiles
// t = sqrt(words / 6) or half of that; the one whose estimated time (fold rounds over the arrays
// against DRAM traffic / bandwidth) is least.
// Tiles are multiples of the array side they map on, and the
// dimension whose tiles are whole folds (os: M, ws: N, is: M) is cut into at least
// kMinStreamTiles tiles when it spans that many folds, so the DMA has something to overlap (the
// first fetch of an op is exposed) at no fill/drain cost; ws with few weight columns cuts its
// streamed M instead when each tile streams >= 8x the fold's fill and drain. Re-reads: A is re-fetched for every N tile unless it is one
// tile; B for every M tile when K is split (else once per N tile). Convolutions are implicit GEMMs:
// an A tile moves a_unique_fraction of its im2col bytes (core/lowering.h).
//
// Waves: a tile's folds are dealt over the arrays in waves of `count` (109 folds on 108 arrays take
// two waves), and the streaming cut keeps each tile a whole number of full waves, so cutting never
// idles arrays that one tile would have filled.
// Split-K (the idea of stream-K, Osama et al., PPoPP 2023, and cuBLAS's split-K kernels): a tile
// whose output folds leave arrays idle splits its K over `split` arrays per output fold; each array
// accumulates its K/split slice in fp32 (kPartialBytes) in SRAM, and after the last K tile the
// vector units add the split partial sums (reading split partials, (split-1) adds per output) before
// the output is written. On a GPU the workspace of such small outputs stays in L2, which is the
// SRAM here, so the partials cost SRAM traffic and vector time, not DRAM. The split is the one of
// 1, 2, 4, ... and count / folds whose tile_pipeline time is least (ties: the smaller split).
//
// Elementwise work (vector unit): an op whose tensors fit in half the SRAM works in SRAM in one
// tile; a larger one streams through DRAM in double-buffered chunks of
// capacity / (2 * tensors * bytes) elements.
#include <cstdint>

#include "core/hw_spec.h"
#include "core/lowering.h"

namespace kp {

constexpr int64_t kMinStreamTiles = 4;
constexpr int64_t kPartialBytes = 4;  // split-K partial sums accumulate in fp32

// One tile: its compute and what the DMA moves for it. Reads must land before the tile computes;
// writes leave after it.
struct TileStep {
  int64_t unit_cycles = 0;   // array (fold timing over `count` arrays) or vector-unit cycles
  int64_t units_busy = 0;    // arrays (or vector units) the tile occupies
  double compute_s = 0;      // max(unit cycles / (clock * efficiency), SRAM port time) + reduce_s
  double reduce_s = 0;       // split-K: vector-unit time adding the partial sums, after the arrays
  double speed = 1.0;        // the array's rate for the operands' type over its geometry's rate
  int64_t waves = 0;         // GEMM: rounds of folds (x split) over the arrays
  int64_t read_bytes = 0, write_bytes = 0;  // DRAM
  double sram_bytes = 0;     // whole bytes
  double footprint_bytes = 0;  // SRAM the tile's double buffers occupy
  double macs = 0, vector_ops = 0;
};

class TilePlan {
 public:
  // GEMM on the arrays; bytes_per_element of the operands. A batched GEMM (g.groups > 1) is tiled
  // with its problems stacked along M (their A and C rows are disjoint), and every tile reads the
  // B operand of each problem its rows cover (ceil(tile rows / problem rows)). out_fraction of the
  // output is written to DRAM (0: a fused kernel keeps it on chip).
  // array_speed: the array's rate for the operands' type over its geometry's (core/precision.h
  // matmul_speed): fold cycles take 1 / array_speed of their clock time.
  static TilePlan gemm(const HardwareSpec& hw, const GemmDims& g, double a_unique_fraction, int64_t bytes_per_element,
                       double out_fraction = 1.0, double array_speed = 1.0);
  // Elementwise op on the vector units.
  static TilePlan elementwise(const HardwareSpec& hw, double elements, double ops_per_element, double tensors_moved,
                              int64_t bytes_per_element);

  int64_t tiles() const { return m_tiles; }
  TileStep step(int64_t t) const;  // 0 <= t < tiles()
  bool is_gemm() const { return m_gemm; }
  // GEMM tile sizes and counts; tile t = (n_tile * m_tiles + m_tile) * k_tiles + k_tile. Elementwise
  // chunks count along K.
  int64_t tm() const { return m_tm; }
  int64_t tn() const { return m_tn; }
  int64_t tk() const { return m_tk; }
  int64_t m_tiles_count() const { return m_nm; }
  int64_t n_tiles_count() const { return m_nn; }
  int64_t k_tiles_count() const { return m_nk; }
  int64_t split() const { return m_split; }  // GEMM: arrays sharing one output fold's K (split-K)

 private:
  TileStep gemm_step(int64_t t) const;
  TileStep chunk_step(int64_t t) const;
  TileStep class_step(int64_t m, int64_t n, int64_t k) const;
  void build_classes();

  const HardwareSpec* m_hw = nullptr;
  bool m_gemm = true;
  int64_t m_tiles = 0;
  // GEMM
  GemmDims m_g;          // groups stacked: m = groups * problem rows
  int64_t m_group_rows = 0;  // rows of one problem where groups > 1, else 0
  double m_afrac = 1, m_out_fraction = 1, m_speed = 1;
  int64_t m_bpe = 2;
  int64_t m_tm = 0, m_tn = 0, m_tk = 0, m_nm = 0, m_nn = 0, m_nk = 0, m_split = 1;
  TileStep m_class[8];  // compute of the (full/edge M, N, K) tile classes, traffic left zero
  // Elementwise
  double m_elements = 0, m_ops = 0, m_read_tensors = 0, m_write_tensors = 0, m_chunk = 0;
  bool m_on_chip = false;
};

// DRAM transfer time of one DMA batch: the bytes are cut into kDramBurstBytes bursts interleaved
// over the channels from channel 0; each channel serves its bursts at bandwidth / channels; the
// batch's transfers are issued together, so one latency is paid. Returns 0 for no bytes.
constexpr int64_t kDramBurstBytes = 64;  // one DDR4/LPDDR4 BL16 x32 or HBM2 pseudo-channel BL4 x 128-bit access
int64_t dram_bursts_on_busiest_channel(int64_t bytes, int64_t channels);
double dram_batch_s(const DramSpec& dram, const int64_t* transfer_bytes, int n_transfers);

// The op's timeline in the twin, in closed form over the tile grid (constant time whatever the
// number of tiles): a double-buffered, lock-step tile pipeline. Tile 0's reads are
// fetched first (exposed); while tile t computes, the DMA writes tile t-1's outputs and reads tile
// t+1's operands (one batch, dram_batch_s); tile t+1 starts when both are done (a stall when the DMA
// is late); the last tile's outputs are written before the op ends (the next op reads them).
//   seconds = dma(R_0) + sum_t max(c_t, dma(W_{t-1} + R_{t+1})) + dma(W_last)
struct TiledCost {
  double seconds = 0, compute_s = 0, stall_s = 0;  // stall_s = seconds - compute_s (exposed DMA)
  int64_t unit_cycles = 0;                         // sum of the tiles' array / vector cycles
  double read_bytes = 0, write_bytes = 0, sram_bytes = 0, macs = 0, vector_ops = 0;
  int64_t tiles = 0;
};
TiledCost tile_pipeline(const TilePlan& plan, const DramSpec& dram);

}  // namespace kp
