// How a product is split across a multi-threaded trial's threads (gemm.h): by columns (large
// products in chunks, to whichever thread is free) or rows of C, each part computed by
// sgemm_tiles() exactly as on one thread, or by depth blocks when C is too small for either, the
// blocks' sums added in the serial product's order.
#include "models/trainer/gemm.h"

#include <algorithm>
#include <stdexcept>

#include "core/int_math.h"
#include "models/trainer/gemm_pack.h"
#include "models/trainer/gemm_tiles.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

#ifdef __AVX512F__

bool sgemm_available() { return true; }

namespace {

struct Product {
  Trans ta, tb;
  int64_t m, n, k;
  const float* a;
  int64_t lda;
  const PackedA* pa;  // instead of (ta, a, lda) if not null
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
  bool accumulate;
  GemmWorkspace* ws;
  TileSink* sink;
  bool by_rows;  // split into parts by rows of C (else by columns)
  int parts;
  int part;  // >= 0: all of it on the calling thread with this part's buffers
};

// Rows [i0, i1) x columns [j0, j1) of C; the tile shape is chosen from the part's width, which
// never changes a value (each element is the same chain of FMAs).
void sgemm_part(const Product& p, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int part) {
  const int64_t m = i1 - i0, n = j1 - j0;
  if (m < 1 || n < 1) return;
  const float* a = p.pa ? nullptr : p.a + (p.ta == Trans::No ? i0 : i0 * p.lda);
  const float* b = p.b + (p.tb == Trans::No ? j0 * p.ldb : j0);
  float* c = p.c + i0 + j0 * p.ldc;
  sgemm_tiles(p.ta, p.tb, m, n, p.k, a, p.lda, p.pa, b, p.ldb, c, p.ldc, p.accumulate, *p.ws,
              p.sink, i0, j0, part);
  if (p.sink) p.sink->flush(part);
}

// Part `part` of `parts` of [0, extent) in units of `unit` (a tile edge, so no tile straddles).
void split(int64_t extent, int64_t unit, int part, int parts, int64_t* lo, int64_t* hi) {
  const int64_t units = ceil_div(extent, unit);
  *lo = std::min(extent, units * part / parts * unit);
  *hi = std::min(extent, units * (part + 1) / parts * unit);
}

void run_part(void* ctx, int part) {
  const Product& p = *static_cast<const Product*>(ctx);
  int64_t lo = 0, hi = 0;
  if (p.by_rows) {
    split(p.m, kMr, part, p.parts, &lo, &hi);
    sgemm_part(p, lo, hi, 0, p.n, part);
  } else {
    split(p.n, kSplitCols, part, p.parts, &lo, &hi);
    sgemm_part(p, 0, p.m, lo, hi, part);
  }
}

// A large product split by columns goes in chunks of columns, each to the next free thread,
// with op(A) packed once (by both threads, into the workspace's shared PackedA) instead of once
// per part. Static halves left one thread waiting: with the same work, either thread of this VM
// ran 10-25% slower than the other for stretches of a run (per-product caller and helper times,
// MLP b=1024 on 2 threads), and the waits summed to 0.2-0.8 ms of a 5.5-8.8 ms step. Chunks
// per thread, in-process A/B of whole steps against static halves: 4 +-0%, 8 +4.4 to +5.7%
// (faster in 42-51 of 60 rounds, four sets), 16 +4.2%; MLP b=16 and b=128 and the Simple CNN
// unchanged (30/60, 31/60, 14/30). Each chunk is computed as on one thread: the same bits. Not
// with a sink that keeps per-part sums (the fused update's squared norm would then depend on
// which thread took which chunk).
constexpr double kChunkedMinFlops = 2e7;
constexpr int64_t kChunksPerThread = 8;

bool shares_a_in_chunks(const Product& p) {
  return !p.pa && (!p.sink || p.sink->order_free()) &&
         2.0 * double(p.m) * double(p.n) * double(p.k) >= kChunkedMinFlops &&
         p.ws->shared_a().reserved_for(p.m, p.k);
}

void chunked_columns(Product& p, WorkerPool* pool) {
  PackedA& shared = p.ws->shared_a();
  shared.pack(p.ta, p.m, p.k, p.a, p.lda, pool);
  p.pa = &shared;
  const int64_t units = ceil_div(p.n, kSplitCols);
  const int64_t cols =
      ceil_div(units, std::min<int64_t>(units, kChunksPerThread * p.parts)) * kSplitCols;
  for_each_chunk(pool, ceil_div(p.n, cols), [&](int64_t c, int part) {
    sgemm_part(p, 0, p.m, c * cols, std::min(p.n, (c + 1) * cols), part);
  });
}

// Depth split (see run_product): thread t computes depth blocks [t*B/T, (t+1)*B/T); thread 0's
// go into C as the one-thread product adds them (C = chain, or C + chain, then C + chain for
// each next block), the others' each into its own scratch (each block one chain of FMAs from
// zero), which the caller then adds to C block by block in order, the last one through the sink:
// the same additions in the same order, so the same bits.
struct DepthSplit {
  const Product* p;
  int64_t kb, blocks;
  float* scratch;  // block b (not thread 0's) at (b - 1) * m * n, leading dimension m
};
void run_depth_part(void* ctx, int part) {
  const DepthSplit& d = *static_cast<const DepthSplit*>(ctx);
  const Product& p = *d.p;
  const int parts = p.parts;
  for (int64_t blk = d.blocks * part / parts; blk < d.blocks * (part + 1) / parts; ++blk) {
    const int64_t pc = blk * d.kb, kc = std::min(d.kb, p.k - pc);
    const float* a = p.a + pc * p.lda;
    const float* b = p.b + (p.tb == Trans::No ? pc : pc * p.ldb);
    const bool to_c = part == 0;
    float* c = to_c ? p.c : d.scratch + (blk - 1) * p.m * p.n;
    const int64_t ldc = to_c ? p.ldc : p.m;
    const bool acc = to_c ? (p.accumulate || blk > 0) : false;
    sgemm_tiles(p.ta, p.tb, p.m, p.n, kc, a, p.lda, nullptr, b, p.ldb, c, ldc, acc, *p.ws,
                nullptr, 0, 0, part);
  }
}
void depth_split(Product& p, WorkerPool* pool, int64_t kb, int64_t blocks, float* scratch) {
  DepthSplit d{&p, kb, blocks, scratch};
  pool->run(run_depth_part, &d);
  const int64_t first_other = blocks / p.parts;  // part 0 took [0, first_other)
  alignas(64) float tile[kMr * kNrMax];
  for (int64_t blk = first_other; blk < blocks; ++blk) {
    const float* s = scratch + (blk - 1) * p.m * p.n;
    const bool last = blk + 1 == blocks && p.sink;
    for (int64_t j0 = 0; j0 < p.n; j0 += kNrMax)
      for (int64_t i0 = 0; i0 < p.m; i0 += kMr) {
        const int64_t rows = std::min(kMr, p.m - i0), cols = std::min(kNrMax, p.n - j0);
        for (int64_t j = j0; j < j0 + cols; ++j) {
          float* c = p.c + j * p.ldc;
          const float* sj = s + j * p.m;
          if (last)
            for (int64_t i = i0; i < i0 + rows; ++i) tile[(i - i0) + (j - j0) * kMr] = c[i] + sj[i];
          else
            for (int64_t i = i0; i < i0 + rows; ++i) c[i] += sj[i];
        }
        if (last) p.sink->tile(i0, j0, rows, cols, tile, kMr, 0);
      }
  }
  if (p.sink) p.sink->flush(0);
}

// Below this many FLOPs a split costs more than it saves: a fork-join is ~0.5 us while the
// helper polls (worker_pool.cpp), 20-30 us once it blocked. With helpers blocking after 64 polls
// a 4e6 threshold cost MLP b=16 on 2 threads 40k -> 29k samples/s; since they poll ~0.5 ms,
// splitting the b=16 products (6.4 MFLOP) pays: 8e6 / 4e6 / 1e6 gave 37k / 42k / 44k samples/s
// at b=16 and the same at b=128, b=1024 and the CNN (means of three alternating runs).
constexpr double kParallelMinFlops = 1e6;

// C = op(A) op(B) with op(A) given by (ta, a, lda) or, if pa, pre-packed.
void run_product(Product& p) {
  const int64_t m = p.m, n = p.n, k = p.k;
  if (m < 1 || n < 1) return;
  if (k < 1) {
    if (!p.accumulate)
      for (int64_t j = 0; j < n; ++j) std::fill(p.c + j * p.ldc, p.c + j * p.ldc + m, 0.0f);
    if (p.sink)  // the product is C itself: hand it over tile by tile
      for (int64_t j = 0; j < n; j += kNrMax)
        for (int64_t i = 0; i < m; i += kMr)
          p.sink->tile(i, j, std::min(kMr, m - i), std::min(kNrMax, n - j), p.c + i + j * p.ldc,
                       p.ldc, 0);
    if (p.sink) p.sink->flush(0);
    return;
  }
  if (p.part >= 0) return sgemm_part(p, 0, m, 0, n, p.part);
  WorkerPool* pool = p.ws->pool();
  if (pool && pool->threads() > 1 && 2.0 * double(m) * double(n) * double(k) >= kParallelMinFlops) {
    p.parts = pool->threads();
    p.by_rows = split_by_rows(m, n, p.parts);
    if (!p.by_rows && shares_a_in_chunks(p)) return chunked_columns(p, pool);
    if (!split_by_depth(m, n, p.parts)) return pool->run(run_part, &p);
    // C too small to split (conv1's weight gradient, 32 x 25, over the 10,192 pixels of a chunk
    // of samples, ran on one thread): split its depth blocks instead. Simple CNN one trial on 2
    // threads +3.1% (faster in 30 of 40 in-process rounds; mean step 56.9 -> 54.5 ms).
    const int64_t kb = depth_block(k), blocks = ceil_div(k, kb);
    if (!p.pa && p.ta == Trans::No && blocks >= p.parts &&
        p.ws->ksplit_floats() >= (blocks - 1) * m * n)
      return depth_split(p, pool, kb, blocks, p.ws->ksplit());
  }
  sgemm_part(p, 0, m, 0, n, 0);
}

}  // namespace

void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
           const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate, GemmWorkspace& ws,
           TileSink* sink, int part) {
  Product p{ta, tb, m,   n,          k,   a,    lda,   nullptr, b,   ldb,
            c,  ldc, accumulate, &ws, sink, false, 1, part};
  run_product(p);
}

void sgemm(const PackedA& a, Trans tb, int64_t n, const float* b, int64_t ldb, float* c,
           int64_t ldc, bool accumulate, GemmWorkspace& ws, TileSink* sink, int part) {
  Product p{Trans::No, tb, a.rows(), n, a.depth(), nullptr, 0, &a, b, ldb, c, ldc, accumulate,
            &ws, sink, false, 1, part};
  run_product(p);
}

#else  // no AVX-512: the layers use Eigen's product instead

bool sgemm_available() { return false; }
bool sgemm_packs_a(Trans, int64_t) { return false; }

void sgemm(Trans, Trans, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
           float*, int64_t, bool, GemmWorkspace&, TileSink*, int) {
  throw std::logic_error("sgemm: built without AVX-512 (check sgemm_available())");
}
void sgemm(const PackedA&, Trans, int64_t, const float*, int64_t, float*, int64_t, bool,
           GemmWorkspace&, TileSink*, int) {
  throw std::logic_error("sgemm: built without AVX-512 (check sgemm_available())");
}
#endif

}  // namespace kp::trainer_detail
