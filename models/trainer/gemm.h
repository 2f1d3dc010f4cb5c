#pragma once
// Single-precision GEMM for the trainer's dense and convolution layers: C = op(A) op(B) (+ C),
// all column-major. Why not Eigen's product: Eigen 3.4 allocates its packing buffers on every
// call (glibc returns them to the OS, so each step paid first-touch page faults: ~20% of an MLP
// b=128 step here) and its AVX-512 kernel (48x4 register tile) reached ~55% of this core's FMA
// peak. This one packs into buffers the layer owns (no allocation in a step) and uses a 32x12
// register tile (24 accumulators) in the Goto/BLIS loop order (Goto & van de Geijn 2008,
// "Anatomy of high-performance matrix multiplication", ACM TOMS 34(3); Van Zee & van de Geijn
// 2015, BLIS); an operand that few panels of the other share (or B that fits in L2) is read in
// place instead (gemm.cpp). Deterministic: the summation order depends only on (m, n, k), never
// on the buffers' addresses, the operands' packing or the number of threads (a thread computes
// whole rows or columns of C).
// Available only when built with AVX-512 (sgemm_available()); layers use Eigen otherwise.
// Internal to kp_trainer; Eigen-free.
#include <cstdint>
#include <vector>

#include "models/trainer/aligned_vector.h"

namespace kp::trainer_detail {

enum class Trans { No, Yes };

class WorkerPool;

// op(A) packed once for many products that share it: a convolution's weights, used by every
// chunk of samples (conv2 of the Simple CNN at batch 128: 128 products a step, each of which
// re-packed all weights, transposed for the input gradient), or a large product's A shared by
// its chunks of columns on a pool (gemm_split.cpp). Same values as packing per product.
class PackedA {
 public:
  // Space for op(A) of up to m x k; call at construction.
  void reserve(int64_t m, int64_t k);
  // Packs op(A) (m x k; A stored as for sgemm()), split across the pool's threads if a pool is
  // given. Aborts if not reserved (an internal bug).
  void pack(Trans ta, int64_t m, int64_t k, const float* a, int64_t lda,
            WorkerPool* pool = nullptr);
  bool reserved_for(int64_t m, int64_t k) const;  // pack(_, m, k, ...) fits
  int64_t rows() const { return m_m; }
  int64_t depth() const { return m_k; }
  // The panels of depth block [p0, p0 + kc) from row r (a multiple of the panel height).
  const float* panels(int64_t p0, int64_t kc, int64_t r) const;
  // For a writer that fills the panels itself instead of pack() (the optimizer's update writing
  // a dense layer's new weights as it computes them): op(A) is m x k from here on, and the
  // writer fills column(r, p) for every depth step p and row panel r. Rows past m are padding,
  // which reserve() zeroed and the writer leaves alone. Aborts if not reserved.
  void set_shape(int64_t m, int64_t k);
  // The panel height's floats of rows [r, r + 32) at depth p (r a multiple of 32), 128-byte
  // aligned. *run (if given): how many depth steps from p on, p's included, lie in p's depth
  // block, whose columns follow each other 32 floats apart.
  const float* column(int64_t r, int64_t p, int64_t* run = nullptr) const;
  float* column(int64_t r, int64_t p, int64_t* run = nullptr) {
    return const_cast<float*>(static_cast<const PackedA*>(this)->column(r, p, run));
  }
  // Floats from column(r, p) to column(r + 32, p): 32 times the depth of p's block.
  int64_t panel_step(int64_t p) const;

 private:
  AlignedVector<float> m_data;
  int64_t m_m = 0, m_k = 0;
};

// Packing space, one set per thread of the pool (if any). With a pool of T threads, products
// large enough to pay for the fork-join are split into T parts by columns (or rows, if C has
// few columns; large ones by columns into chunks for whichever thread is free, sharing one
// packed A), each computed exactly as without the pool, or, when C is too small for either,
// by depth blocks whose sums are added in the order the product adds them (gemm_split.cpp): the
// values do not depend on T.
class GemmWorkspace {
 public:
  // Before reserve(); the pool must outlive the workspace.
  void set_pool(WorkerPool* pool);
  // Grows the packing buffers for every product of at most (m x k) times (k x n); call at
  // construction. sgemm() aborts on a product the buffers are too small for (an internal bug).
  void reserve(int64_t m, int64_t n, int64_t k);
  float* a(int part = 0) { return m_parts[static_cast<size_t>(part)].a.data(); }
  float* b(int part = 0) { return m_parts[static_cast<size_t>(part)].b.data(); }
  int64_t a_floats(int part = 0) const { return floats(m_parts[static_cast<size_t>(part)].a); }
  int64_t b_floats(int part = 0) const { return floats(m_parts[static_cast<size_t>(part)].b); }
  WorkerPool* pool() const { return m_pool; }
  float* ksplit() { return m_ksplit.data(); }
  PackedA& shared_a() { return m_shared_a; }  // for a split's chunks of columns
  int64_t ksplit_floats() const { return static_cast<int64_t>(m_ksplit.size()); }

 private:
  struct Buffers {
    AlignedVector<float> a, b;
  };
  static int64_t floats(const AlignedVector<float>& v) { return static_cast<int64_t>(v.size()); }
  WorkerPool* m_pool = nullptr;
  std::vector<Buffers> m_parts = std::vector<Buffers>(1);
  AlignedVector<float> m_ksplit;  // depth-split products' scratch (gemm_split.cpp)
  PackedA m_shared_a;
};

bool sgemm_available();
// Whether sgemm() packs op(A) for a product of n columns, rather than reading it in place.
bool sgemm_packs_a(Trans ta, int64_t n);

class InterleavedUpdate;  // interleaved_update.h

// A fused epilogue: receives each finished tile of C instead of C receiving it, so that a
// consumer (the optimizer's update) reads the product from registers' worth of stack, not from
// a matrix written and read back through the caches. Tile: rows x cols at (i0, j0) of C,
// column-major with leading dimension ld; the tiles cover C exactly once.
// With a pool, `part` (in [0, threads)) says which thread delivers the tile: tiles of different
// parts arrive concurrently, so a sink keeps per-part state.
class TileSink {
 public:
  virtual void tile(int64_t i0, int64_t j0, int64_t rows, int64_t cols, const float* t,
                    int64_t ld, int part) = 0;
  // An optimizer's update that the kernel interleaves with the product itself, each full tile
  // of kMr rows (with no partial sums in C, A packed) applied during the next one's depth loop,
  // instead of handing such tiles to tile(): or null. The sink settles a part's waiting tile
  // in tile() and flush(), so the tiles' order stays the product's.
  virtual InterleavedUpdate* interleaved() { return nullptr; }
  // Whether the result is the same whichever part delivers which tile (true unless the sink
  // sums per part): only then may a split hand chunks of C to whichever thread is free.
  virtual bool order_free() const { return true; }
  // Called on each thread that delivered tiles, after its last tile of a part of the product
  // (before sgemm() returns), with that part: a sink that writes by non-temporal stores fences
  // them here, as the caller may hand what they wrote to another thread next.
  virtual void flush(int /*part*/) {}

 protected:
  ~TileSink() = default;
};

// C (m x n, leading dimension ldc) = op(A) (m x k) * op(B) (k x n), plus the old C if
// `accumulate`. op(A) = A (lda >= m) or A^T (A stored k x m, lda >= k); likewise B. The
// workspace must have been reserved for at least these sizes. With a sink, the final values go
// to the sink and C only holds partial sums over the earlier depth blocks (undefined after);
// the values are bit-identical to those stored without a sink. `part` >= 0: computed on the
// calling thread with that part's packing buffers, for a caller that already runs inside the
// workspace's pool (one product per part at a time); the values are the same.
void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
           const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate, GemmWorkspace& ws,
           TileSink* sink = nullptr, int part = -1);
// The same with op(A) from pack() (m = a.rows(), k = a.depth()); bit-identical to sgemm().
void sgemm(const PackedA& a, Trans tb, int64_t n, const float* b, int64_t ldb, float* c,
           int64_t ldc, bool accumulate, GemmWorkspace& ws, TileSink* sink = nullptr,
           int part = -1);
// Up to this depth every element of a product is one chain of FMAs from zero, added to C once
// if `accumulate`: C + op(A) op(B) then equals adding the product computed apart (C = 0) to C,
// bit for bit. Deeper products add each depth block's chain to C in turn.
constexpr int64_t kSgemmSingleBlockDepth = 320;

}  // namespace kp::trainer_detail
