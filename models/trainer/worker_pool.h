#pragma once
// Fork-join over a fixed set of threads, for splitting one trial's products across cores.
// Contract: run(fn, ctx) calls fn(ctx, i) once for every i in [0, threads()) — i = 0 on the
// calling thread, the others on helper threads created at construction — and returns when all
// have finished. Nothing is allocated per run. The caller decides what part i computes, so the
// result never depends on which thread ran it or when. Not reentrant; one caller at a time.
// Helpers take the caller's MXCSR (flush-to-zero, rounding) for each run, so a part computes
// the same floats on any thread. Between runs helpers spin briefly (tens of microseconds), then
// block on a condition variable: an idle pool costs no CPU on the shared machine.
// Internal to kp_trainer.
#include <memory>

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

}  // namespace kp::trainer_detail
