#include "models/trainer/worker_pool.h"

#include <xmmintrin.h>  // MXCSR: x86-64 only, like the rest of the build

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kp::trainer_detail {

namespace {

// Poll this many times, yielding the core in between, before blocking: a step's products come
// a few to a few hundred microseconds apart, and waking a blocked thread took 20-30 us per
// fork-join in this VM (a batch-16 MLP step has six products to split). 2048 yields are ~0.5
// ms here: one trial on 2 threads, 64 -> 2048 polls, MLP b=128 67k -> 91k, b=1024 87k -> 99k,
// Simple CNN 0.97k -> 1.15k samples/s (means of five alternating runs). Yielding, not pausing:
// when the other core is busy, the caller and its helper share one and a pausing spin stole the
// caller's time (MLP b=16 on 2 threads 40k -> 17k samples/s). Bounded, so an idle pool sleeps.
constexpr int kSpinPolls = 2048;

}  // namespace

struct WorkerPool::Impl {
  std::mutex mu;
  std::condition_variable start, done;
  std::atomic<uint64_t> generation{0};  // bumped by each run; a helper runs once per generation
  std::atomic<int> pending{0};          // helpers still running the current generation
  std::atomic<bool> stop{false};
  void (*fn)(void*, int) = nullptr;     // written before generation is bumped (release)
  void* ctx = nullptr;
  unsigned csr = 0;  // the caller's MXCSR (flush-to-zero, rounding): helpers compute alike
  std::vector<std::thread> helpers;

  void helper(int part) {
    uint64_t seen = 0;
    for (;;) {
      for (int i = 0; i < kSpinPolls && generation.load(std::memory_order_acquire) == seen &&
                      !stop.load(std::memory_order_relaxed);
           ++i)
        std::this_thread::yield();
      if (generation.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(mu);
        start.wait(lock, [&] { return stop.load() || generation.load() != seen; });
      }
      if (stop.load()) return;
      seen = generation.load(std::memory_order_acquire);
      _mm_setcsr(csr);
      fn(ctx, part);
      if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu);  // the caller is checking or already waiting
        done.notify_one();
      }
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
    m->stop.store(true);
  }
  m->start.notify_all();
  for (std::thread& t : m->helpers) t.join();
}

void WorkerPool::run(void (*fn)(void*, int), void* ctx) {
  if (m_threads == 1) return fn(ctx, 0);
  m->fn = fn;
  m->ctx = ctx;
  m->csr = _mm_getcsr();
  m->pending.store(m_threads - 1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(m->mu);  // a helper between its check and its wait
    m->generation.fetch_add(1, std::memory_order_release);
  }
  m->start.notify_all();
  fn(ctx, 0);
  for (int i = 0; i < kSpinPolls && m->pending.load(std::memory_order_acquire) > 0; ++i)
    std::this_thread::yield();
  if (m->pending.load(std::memory_order_acquire) > 0) {
    std::unique_lock<std::mutex> lock(m->mu);
    m->done.wait(lock, [&] { return m->pending.load(std::memory_order_acquire) == 0; });
  }
}

}  // namespace kp::trainer_detail
