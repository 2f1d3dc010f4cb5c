#include "sim/tile_plan.h"

#include <algorithm>
#include <cmath>

#include "core/int_math.h"
#include "sim/fold_timing.h"

namespace kp {
namespace {

// Largest multiple of `align` not above x (x itself when below align), and never above dim.
int64_t fit(int64_t x, int64_t dim, int64_t align) {
  x = std::min(x, dim);
  if (x > align) x -= x % align;
  return std::max<int64_t>(x, 1);
}

}  // namespace

int64_t dram_bursts_on_busiest_channel(int64_t bytes, int64_t channels) {
  return ceil_div(ceil_div(bytes, kDramBurstBytes), channels);
}

double dram_batch_s(const DramSpec& dram, const int64_t* transfer_bytes, int n_transfers) {
  int64_t bursts = 0;
  for (int i = 0; i < n_transfers; ++i)
    if (transfer_bytes[i] > 0) bursts += dram_bursts_on_busiest_channel(transfer_bytes[i], dram.channels);
  if (bursts == 0) return 0;
  const double channel_bw = dram.bandwidth_bytes_per_s / static_cast<double>(dram.channels);
  return dram.latency_s + static_cast<double>(bursts * kDramBurstBytes) / channel_bw;
}

TilePlan TilePlan::gemm(const HardwareSpec& hw, const GemmDims& problem, double a_unique_fraction, int64_t bpe,
                        double out_fraction, double array_speed) {
  TilePlan p;
  GemmDims g = problem;
  g.m *= g.groups;
  g.groups = 1;
  p.m_hw = &hw, p.m_gemm = true, p.m_g = g, p.m_afrac = a_unique_fraction, p.m_bpe = bpe;
  p.m_group_rows = problem.groups > 1 ? problem.m : 0;
  p.m_out_fraction = out_fraction;
  p.m_speed = array_speed;
  if (g.m == 0 || g.n == 0 || g.k == 0) return p;
  const SystolicArraySpec& a = hw.array;
  // The array side each GEMM dimension maps on (fold_mapping): tiles are multiples of it.
  const FoldMapping side = fold_mapping(a.dataflow, GemmShape{1, 2, 3});
  const auto align = [&](int64_t which) {  // which: 1 = M, 2 = N, 3 = K
    if (side.sr == which) return a.rows;
    if (side.sc == which) return a.cols;
    return int64_t{1};
  };
  const int64_t am = align(1), an = align(2), ak = align(3);
  const double words = std::floor(hw.sram.capacity_bytes / static_cast<double>(bpe));
  const double half = 0.5 * words;
  const double M = static_cast<double>(g.m), N = static_cast<double>(g.n), K = static_cast<double>(g.k);
  const auto fits = [&](int64_t m, int64_t n, int64_t k) {
    return 2.0 * (static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n) <= words;
  };
  const auto floor_i = [](double x) { return static_cast<int64_t>(std::max(0.0, std::floor(x))); };
  // Estimated time of a tiling: its tiles' array time (fold rounds over the arrays) against its DRAM
  // traffic; the plan is the candidate with the least, so tiles that leave arrays idle or re-read
  // too much lose. Both fidelities use the chosen plan, so the estimate only ranks.
  const double bpe_d = static_cast<double>(bpe);
  const auto estimate = [&](int64_t m, int64_t n, int64_t k) {
    const FoldTiming ft = fold_timing(a.dataflow, a.rows, a.cols, GemmShape{m, n, k});
    const double nm = std::ceil(M / static_cast<double>(m)), nn = std::ceil(N / static_cast<double>(n)),
                 nk = std::ceil(K / static_cast<double>(k));
    const double compute = nm * nn * nk * static_cast<double>(ceil_div(ft.folds, a.count) * ft.cycles_per_fold) /
                           (hw.clock_hz * hw.compute_efficiency * array_speed);
    const double traffic = (M * K * (nm * nk > 1 ? nn : 1) + K * N * (nk > 1 ? nm : 1) + M * N) * bpe_d;
    // Every tile's DMA batch pays the DRAM latency once (tile_pipeline), so many small tiles lose.
    return std::max(compute, traffic / hw.dram.bandwidth_bytes_per_s + nm * nn * nk * hw.dram.latency_s);
  };
  int64_t tm = g.m, tn = g.n, tk = g.k;
  if (!fits(tm, tn, tk)) {
    struct Tiles { int64_t m, n, k; };
    Tiles cand[7];
    int nc = 0;
    // 1: whole K and N, as many M rows as fit beside them.
    cand[nc++] = {fit(floor_i((half - K * N) / (K + N)), g.m, am), g.n, g.k};
    // 2: whole K, square output tiles t x t (2 (2 t K + t^2) <= words); a side clamped by the
    // GEMM lets the other grow.
    {
      const int64_t t = floor_i(std::sqrt(K * K + half) - K);
      Tiles c{fit(t, g.m, am), fit(t, g.n, an), g.k};
      if (c.m == g.m) c.n = fit(floor_i((half - K * M) / (K + M)), g.n, an);
      cand[nc++] = c;
    }
    // 3: K split too: cubes (and half cubes), or squares in N x K beside a short M.
    for (double scale : {1.0, 0.5}) {
      const int64_t c3 = floor_i(scale * std::sqrt(words / 6.0));
      Tiles c{fit(c3, g.m, am), fit(c3, g.n, an), fit(c3, g.k, ak)};
      if (c.m == g.m) {
        const int64_t sq = floor_i(std::sqrt(M * M + half) - M);
        c.n = fit(sq, g.n, an), c.k = fit(sq, g.k, ak);
      }
      cand[nc++] = c;
    }
    // 4: whole M and N (a small output, e.g. a weight gradient), as much K as fits beside them.
    cand[nc++] = {g.m, g.n, fit(floor_i((half - M * N) / (M + N)), g.k, ak)};
    double best = -1;
    for (int i = 0; i < nc; ++i) {
      Tiles c = cand[i];
      if (c.m < 1 || c.n < 1 || c.k < 1 || !fits(c.m, c.n, c.k)) continue;
      const double e = estimate(c.m, c.n, c.k);
      if (best < 0 || e < best) best = e, tm = c.m, tn = c.n, tk = c.k;
    }
    if (best < 0) {  // tiny SRAM: shrink the largest side until a cube fits
      tm = fit(cand[2].m, g.m, 1), tn = fit(cand[2].n, g.n, 1), tk = fit(cand[2].k, g.k, 1);
      while (!fits(tm, tn, tk) && (tm > 1 || tn > 1 || tk > 1)) {
        int64_t& d = tm >= tn && tm >= tk ? tm : (tn >= tk ? tn : tk);
        d = std::max<int64_t>(1, d / 2);
      }
    }
  }
  // Streaming: cut the dimension that maps on an array side (os: M on rows, ws: N on cols, is: M on
  // cols), whose tiles are whole folds, so the split costs no fill or drain; in whole waves: the
  // cut is a multiple of the folds of that dimension that, beside the other side's folds, fill the
  // arrays once (so a streamed tile never leaves arrays idle that the uncut op would fill).
  // ws with too few weight columns streams M instead (its T): each cut repeats the fold's fill and
  // drain, so only when a tile still streams 8x longer than that (<= 1/8 overhead).
  const auto per_wave = [&](int64_t other_folds) { return std::max<int64_t>(1, a.count / std::max<int64_t>(other_folds, 1)); };
  if (a.dataflow == Dataflow::WeightStationary) {
    const int64_t fill = 2 * a.rows + a.cols - 2;
    const int64_t cut = an * per_wave(ceil_div(tk, a.rows));
    if (g.n >= kMinStreamTiles * cut) tn = std::min(tn, fit(ceil_div(g.n, kMinStreamTiles), g.n, cut));
    else if (g.n < kMinStreamTiles * an && ceil_div(g.m, kMinStreamTiles) >= 8 * fill)
      tm = std::min(tm, ceil_div(g.m, kMinStreamTiles));
  } else {
    const int64_t other = a.dataflow == Dataflow::OutputStationary ? ceil_div(tn, a.cols) : ceil_div(tk, a.rows);
    const int64_t cut = am * per_wave(other);
    if (g.m >= kMinStreamTiles * cut) tm = std::min(tm, fit(ceil_div(g.m, kMinStreamTiles), g.m, cut));
  }
  p.m_tm = tm, p.m_tn = tn, p.m_tk = tk;
  p.m_nm = ceil_div(g.m, tm), p.m_nn = ceil_div(g.n, tn), p.m_nk = ceil_div(g.k, tk);
  p.m_tiles = p.m_nm * p.m_nn * p.m_nk;
  p.build_classes();
  // Split-K when the full tile's folds leave arrays idle: the plan's own pipeline time decides.
  const int64_t folds = fold_timing(a.dataflow, a.rows, a.cols, GemmShape{tm, tn, tk}).folds;
  if (folds < a.count && tk > 1) {
    // A split reserves SRAM for its partial sums, taken from the K tile.
    const double mn = static_cast<double>(tm) * static_cast<double>(tn);
    const auto set_k = [&](int64_t s, int64_t k) {
      p.m_split = s, p.m_tk = k, p.m_nk = ceil_div(g.k, k), p.m_tiles = p.m_nm * p.m_nn * p.m_nk;
      p.build_classes();
    };
    double best = tile_pipeline(p, hw.dram).seconds;
    int64_t best_s = 1, best_k = tk;
    const int64_t smax = std::min(a.count / folds, tk);
    for (int64_t s = 2; s <= smax; s = s * 2 > smax && s < smax ? smax : s * 2) {
      const double room = (hw.sram.capacity_bytes - static_cast<double>(s - 1) * mn * kPartialBytes) / (2.0 * bpe_d) - mn;
      const int64_t k = std::min(tk, fit(floor_i(room / static_cast<double>(tm + tn)), g.k, ak));
      if (room < static_cast<double>(tm + tn) || k < s) break;
      set_k(s, k);
      const double t = tile_pipeline(p, hw.dram).seconds;
      if (t < best) best = t, best_s = s, best_k = k;
    }
    set_k(best_s, best_k);
  }
  return p;
}

void TilePlan::build_classes() {
  // Only the classes that occur (an edge class exists when the dimension has a remainder).
  const int edges = (m_g.m % m_tm ? 1 : 0) | (m_g.n % m_tn ? 2 : 0) | (m_g.k % m_tk ? 4 : 0);
  for (int c = 0; c < 8; ++c) {
    if ((c & ~edges) != 0) continue;
    const int64_t m = (c & 1) ? m_g.m - (m_nm - 1) * m_tm : m_tm;
    const int64_t n = (c & 2) ? m_g.n - (m_nn - 1) * m_tn : m_tn;
    const int64_t k = (c & 4) ? m_g.k - (m_nk - 1) * m_tk : m_tk;
    m_class[c] = class_step(m, n, k);
  }
}

TileStep TilePlan::class_step(int64_t m, int64_t n, int64_t k) const {
  const HardwareSpec& hw = *m_hw;
  const SystolicArraySpec& a = hw.array;
  TileStep s;
  // Split-K: `split` arrays each stream a K / split slice of every output fold.
  const int64_t split = std::min(m_split, k);
  const FoldTiming ft = fold_timing(a.dataflow, a.rows, a.cols, GemmShape{m, n, ceil_div(k, split)});
  s.waves = ceil_div(ft.folds * split, a.count);  // folds spread over the arrays in waves
  s.unit_cycles = s.waves * ft.cycles_per_fold;
  s.units_busy = std::min(ft.folds * split, a.count);
  s.speed = m_speed;
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const double partials = static_cast<double>(split - 1) * mn * kPartialBytes;  // the other splits' sums
  s.footprint_bytes = 2.0 * (static_cast<double>(m) * k + static_cast<double>(k) * n + mn) *
                      static_cast<double>(m_bpe) + partials;
  s.macs = mn * static_cast<double>(k);
  // SRAM feeds the array: each fold reads its operand tiles, the outputs are written once (and the
  // other splits' partial sums beside them).
  const double bpe = static_cast<double>(m_bpe);
  s.sram_bytes = (static_cast<double>(m) * k * ceil_div(n, a.cols) + static_cast<double>(k) * n * ceil_div(m, a.rows) +
                  mn) * bpe + partials;
  s.compute_s = std::max(static_cast<double>(s.unit_cycles) / (hw.clock_hz * hw.compute_efficiency * m_speed),
                         s.sram_bytes / hw.sram.bandwidth_bytes_per_s);
  return s;
}

TileStep TilePlan::step(int64_t t) const { return m_gemm ? gemm_step(t) : chunk_step(t); }

TileStep TilePlan::gemm_step(int64_t t) const {
  const int64_t kk = t % m_nk, i = (t / m_nk) % m_nm, j = t / (m_nk * m_nm);
  const bool em = i == m_nm - 1 && m_g.m % m_tm != 0, en = j == m_nn - 1 && m_g.n % m_tn != 0,
             ek = kk == m_nk - 1 && m_g.k % m_tk != 0;
  TileStep s = m_class[(em ? 1 : 0) | (en ? 2 : 0) | (ek ? 4 : 0)];
  const int64_t m = em ? m_g.m - i * m_tm : m_tm, n = en ? m_g.n - j * m_tn : m_tn, k = ek ? m_g.k - kk * m_tk : m_tk;
  const bool first = t == 0;
  const bool a_new = first || m_nm * m_nk > 1;                  // A is resident only when it is one tile
  const bool b_new = first || m_nk > 1 || (i == 0 && kk == 0);  // whole-K B stays across the M tiles
  const double bpe = static_cast<double>(m_bpe);
  if (a_new) s.read_bytes += static_cast<int64_t>(std::ceil(static_cast<double>(m) * k * bpe * m_afrac));
  if (m_group_rows > 0) {
    // A batched GEMM: the B of each problem the tile's rows cover, ceil(rows / problem rows) of
    // them (exact where tiles hold whole problems; a tile's size alone decides it, so every tile of
    // a size reads the same, as the closed form over representative tiles needs).
    s.read_bytes += ceil_div(m, m_group_rows) * k * n * m_bpe;
  } else if (b_new) {
    s.read_bytes += k * n * m_bpe;
  }
  if (kk == m_nk - 1) {
    s.write_bytes = static_cast<int64_t>(std::ceil(static_cast<double>(m * n * m_bpe) * m_out_fraction));
    const int64_t split = std::min(m_split, k);
    if (split > 1) {  // the vector units add the split partial sums before the output leaves
      const HardwareSpec& hw = *m_hw;
      const double mn = static_cast<double>(m) * static_cast<double>(n);
      s.vector_ops += static_cast<double>(split - 1) * mn;
      s.sram_bytes += static_cast<double>(split) * mn * kPartialBytes;
      const double lanes = static_cast<double>(hw.vector.lanes * hw.vector.count);
      s.reduce_s = std::ceil(s.vector_ops / lanes) / hw.clock_hz;
      s.compute_s = std::max(static_cast<double>(s.unit_cycles) / (hw.clock_hz * hw.compute_efficiency * m_speed),
                             s.sram_bytes / hw.sram.bandwidth_bytes_per_s) + s.reduce_s;
    }
  }
  return s;
}

TilePlan TilePlan::elementwise(const HardwareSpec& hw, double elements, double ops_per_element, double tensors_moved,
                               int64_t bpe) {
  TilePlan p;
  p.m_hw = &hw, p.m_gemm = false, p.m_bpe = bpe;
  if (elements <= 0) return p;
  p.m_elements = elements, p.m_ops = ops_per_element;
  // One tensor is written (when at least two move), the rest are read.
  p.m_write_tensors = tensors_moved >= 2 ? 1 : 0;
  p.m_read_tensors = tensors_moved - p.m_write_tensors;
  const double tensors = std::max(tensors_moved, 1.0);
  p.m_on_chip = elements * tensors * static_cast<double>(bpe) <= 0.5 * hw.sram.capacity_bytes;
  if (p.m_on_chip) {
    p.m_chunk = elements, p.m_tiles = 1;
  } else {
    p.m_chunk = std::max(1.0, std::floor(hw.sram.capacity_bytes / (2 * tensors * static_cast<double>(bpe))));
    p.m_tiles = static_cast<int64_t>(std::ceil(elements / p.m_chunk));
  }
  p.m_nn = p.m_nm = 1, p.m_nk = p.m_tiles;  // chunks along one dimension (tile_pipeline)
  return p;
}

TileStep TilePlan::chunk_step(int64_t t) const {
  const HardwareSpec& hw = *m_hw;
  TileStep s;
  const double e = t + 1 == m_tiles ? m_elements - static_cast<double>(t) * m_chunk : m_chunk;
  const double bpe = static_cast<double>(m_bpe);
  s.vector_ops = e * m_ops;
  const double lanes = static_cast<double>(hw.vector.lanes * hw.vector.count);
  s.unit_cycles = static_cast<int64_t>(std::ceil(s.vector_ops / lanes));
  s.units_busy = hw.vector.count;
  // The vector unit reads and writes its operands in SRAM; off-chip tensors also cross DRAM.
  s.sram_bytes = std::ceil(e * (m_read_tensors + m_write_tensors) * bpe);
  s.footprint_bytes = (m_on_chip ? 1.0 : 2.0) * e * std::max(m_read_tensors + m_write_tensors, 1.0) * bpe;
  s.compute_s = std::max(static_cast<double>(s.unit_cycles) / hw.clock_hz, s.sram_bytes / hw.sram.bandwidth_bytes_per_s);
  if (!m_on_chip) {
    s.read_bytes = static_cast<int64_t>(std::ceil(e * m_read_tensors * bpe));
    s.write_bytes = static_cast<int64_t>(std::ceil(e * m_write_tensors * bpe));
  }
  return s;
}

namespace {

// Calls f(index, multiplicity) for representatives of 0..n-1 along one tile dimension: indices
// 1 .. n-3 have the same neighbours and sizes (full tiles whose previous and next are full), so one
// stands for all of them.
template <typename F>
void representatives(int64_t n, F&& f) {
  if (n <= 4) {
    for (int64_t x = 0; x < n; ++x) f(x, 1);
    return;
  }
  f(0, 1), f(1, n - 3), f(n - 2, 1), f(n - 1, 1);
}

}  // namespace

// Closed form over the tile grid: a tile's term depends only on its own sizes and on its previous
// and next tile, so the (N, M, K) grid reduces to at most 4 x 4 x 4 representative tiles with
// multiplicities; the cost does not grow with the batch.
TiledCost tile_pipeline(const TilePlan& plan, const DramSpec& dram) {
  TiledCost c;
  c.tiles = plan.tiles();
  if (c.tiles == 0) return c;
  const int64_t nn = plan.n_tiles_count(), nm = plan.m_tiles_count(), nk = plan.k_tiles_count();
  // Representatives and their neighbours repeat: a direct-mapped memo of steps by tile index.
  int64_t memo_t[16];
  TileStep memo[16];
  for (int64_t& t : memo_t) t = -1;
  const auto step = [&](int64_t t) -> const TileStep& {
    const int slot = static_cast<int>(t & 15);
    if (memo_t[slot] != t) memo_t[slot] = t, memo[slot] = plan.step(t);
    return memo[slot];
  };
  const auto add_tile = [&](int64_t t, int64_t mult) {
    const int64_t batch[2] = {t > 0 ? step(t - 1).write_bytes : 0, t + 1 < c.tiles ? step(t + 1).read_bytes : 0};
    const TileStep& cur = step(t);
    const double m = static_cast<double>(mult);
    c.seconds += m * std::max(cur.compute_s, dram_batch_s(dram, batch, 2));
    c.compute_s += m * cur.compute_s;
    c.unit_cycles += mult * cur.unit_cycles;
    c.read_bytes += m * static_cast<double>(cur.read_bytes);
    c.write_bytes += m * static_cast<double>(cur.write_bytes);
    c.sram_bytes += m * cur.sram_bytes, c.macs += m * cur.macs, c.vector_ops += m * cur.vector_ops;
  };
  representatives(nn, [&](int64_t j, int64_t mj) {
    representatives(nm, [&](int64_t i, int64_t mi) {
      representatives(nk, [&](int64_t kk, int64_t mk) { add_tile((j * nm + i) * nk + kk, mj * mi * mk); });
    });
  });
  const int64_t first_read = plan.step(0).read_bytes, last_write = plan.step(c.tiles - 1).write_bytes;
  c.seconds += dram_batch_s(dram, &first_read, 1) + dram_batch_s(dram, &last_write, 1);
  c.stall_s = c.seconds - c.compute_s;
  return c;
}

}  // namespace kp
