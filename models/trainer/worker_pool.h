#pragma once
// Fork-join over a fixed set of threads, for splitting one trial's products across cores.
// Contract: run(fn, ctx) calls fn(ctx, i) once for every i in [0, threads()) — i = 0 on the
// calling thread, the others on helper threads created at construction — and returns when all
// have finished. Nothing is allocated per run. The caller decides what part i computes, so the
// result never depends on which thread ran it or when. Not reentrant; one caller at a time.
// Helpers take the caller's MXCSR (flush-to-zero, rounding) for each run, so a part computes
// the same floats on any thread. Between runs helpers poll, yielding the core, for ~0.5 ms, then
// block on a condition variable: an idle pool costs no CPU on the shared machine.
// Internal to kp_trainer.
#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace kp::trainer_detail {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);  // threads >= 1; threads - 1 helpers
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return m_threads; }
  void run(void (*fn)(void* ctx, int part), void* ctx);

 private:
  struct Impl;
  int m_threads;
  std::unique_ptr<Impl> m;
};

// Runs f(part, parts) once for every part in [0, parts): on the pool's threads (parts = its
// thread count), or f(0, 1) on the caller without a pool. No allocation.
template <class F>
void run_parts(WorkerPool* pool, F&& f) {
  if (!pool || pool->threads() == 1) return f(0, 1);
  struct Ctx {
    std::remove_reference_t<F>* f;
    int parts;
  } ctx{&f, pool->threads()};
  pool->run(
      [](void* c, int part) {
        const Ctx& x = *static_cast<const Ctx*>(c);
        (*x.f)(part, x.parts);
      },
      &ctx);
}

// Runs f(c, part) once for every chunk c in [0, chunks), each taken by whichever of the pool's
// threads is free (`part`: that thread, for its own buffers), or all on the caller without a
// pool. For work whose threads run at uneven speeds: a chunk's outputs must be its own and
// computed alike on any thread. No allocation.
template <class F>
void for_each_chunk(WorkerPool* pool, int64_t chunks, F&& f) {
  std::atomic<int64_t> next{0};
  run_parts(pool, [&](int part, int) {
    for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) f(c, part);
  });
}

// Runs f(lo, hi) on [0, n) split into pool->threads() contiguous ranges, one per thread of the
// pool; all of it on the caller without a pool or when n < min_n. f must write disjoint outputs
// for disjoint ranges and compute an element the same way in any range: then the values do not
// depend on the split. No allocation.
template <class F>
void parallel_for(WorkerPool* pool, int64_t n, int64_t min_n, F&& f) {
  if (n < min_n) return f(int64_t{0}, n);
  run_parts(pool, [&](int part, int parts) { f(n * part / parts, n * (part + 1) / parts); });
}

}  // namespace kp::trainer_detail
