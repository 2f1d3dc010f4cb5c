#include "models/trainer/worker_pool.h"

#include <xmmintrin.h>  // MXCSR: x86-64 only, like the rest of the build

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kp::trainer_detail {

struct WorkerPool::Impl {
  std::mutex mu;
  std::condition_variable start, done;
  uint64_t generation = 0;  // bumped by each run; a helper runs once per generation
  int pending = 0;          // helpers still running the current generation
  bool stop = false;
  void (*fn)(void*, int) = nullptr;
  void* ctx = nullptr;
  unsigned csr = 0;  // the caller's MXCSR (flush-to-zero, rounding): helpers compute alike
  std::vector<std::thread> helpers;

  void helper(int part) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      start.wait(lock, [&] { return stop || generation != seen; });
      if (stop) return;
      seen = generation;
      void (*f)(void*, int) = fn;
      void* c = ctx;
      _mm_setcsr(csr);
      lock.unlock();
      f(c, part);
      lock.lock();
      if (--pending == 0) done.notify_one();
    }
  }
};

WorkerPool::WorkerPool(int threads) : m_threads(threads), m(std::make_unique<Impl>()) {
  if (threads < 1) throw std::invalid_argument("WorkerPool: threads must be >= 1");
  for (int i = 1; i < threads; ++i) m->helpers.emplace_back([this, i] { m->helper(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(m->mu);
    m->stop = true;
  }
  m->start.notify_all();
  for (std::thread& t : m->helpers) t.join();
}

void WorkerPool::run(void (*fn)(void*, int), void* ctx) {
  if (m_threads == 1) return fn(ctx, 0);
  {
    std::lock_guard<std::mutex> lock(m->mu);
    m->fn = fn;
    m->ctx = ctx;
    m->csr = _mm_getcsr();
    m->pending = m_threads - 1;
    ++m->generation;
  }
  m->start.notify_all();
  fn(ctx, 0);
  std::unique_lock<std::mutex> lock(m->mu);
  m->done.wait(lock, [&] { return m->pending == 0; });
}

}  // namespace kp::trainer_detail
