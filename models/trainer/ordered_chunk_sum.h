#pragma once
// Chunks of samples computed by whichever of a multi-threaded trial's threads is free, their
// partial sums added into one destination in chunk order: the values of a loop over the chunks
// on one thread, with no fork-join per round of chunks and no thread waiting for its turn.
//
// Why: a convolution's weight gradient is the sum of its chunks' products, and one thread adds
// them in chunk order (conv2d.cpp). With the chunks dealt out in rounds (chunk r * T + t on
// thread t), each round cost a fork-join and every round waited for its slower thread: the
// Simple CNN's conv2 runs one sample per chunk, 64 rounds a step on 2 threads. Dealing the
// chunks out strictly in turn instead left one thread waiting 3.3-5.6 ms a step (of ~60) for
// the other's add.
//
// How: a thread takes the next chunk, computes it into one of its kSlots partials, marks it
// ready, and then, if no other thread is adding, adds every ready partial that is next in
// order. It waits only when all its slots hold partials not yet added. Each add is
// `dst = first chunk ? partial : dst + partial` element by element (the first chunk's elements
// [0, store_first) stored, as a product without accumulation stores them; the rest added to
// dst as it was), in chunk order, so the bits do not depend on the threads or their timing.
// Internal to kp_trainer. No allocation after reserve().
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "models/trainer/aligned_vector.h"
#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

template <class T>
class OrderedChunkSum {
 public:
  static constexpr int kSlots = 2;

  // Partials of n elements, for up to max_chunks chunks on `threads` threads; at construction.
  void reserve(int64_t n, int threads, int64_t max_chunks) {
    m_n = n;
    m_slots.assign(static_cast<size_t>(n * threads * kSlots), T(0));
    m_ready = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(max_chunks));
    m_src.assign(static_cast<size_t>(max_chunks), nullptr);
    m_max_chunks = max_chunks;
  }
  bool reserved() const { return m_max_chunks > 0; }

  // compute(c, part, partial) writes chunk c's partial (n elements) and may write other
  // outputs of chunk c that no other chunk writes; it runs once for every c in [0, chunks),
  // on the pool's thread `part`. Then dst holds the ordered sum described above.
  template <class F>
  void run(WorkerPool* pool, int64_t chunks, int64_t store_first, T* dst, F&& compute) {
    if (chunks > m_max_chunks) {
      std::fprintf(stderr, "OrderedChunkSum: %lld chunks, reserved for %lld (internal bug)\n",
                   static_cast<long long>(chunks), static_cast<long long>(m_max_chunks));
      std::abort();
    }
    for (int64_t c = 0; c < chunks; ++c) m_ready[c].store(0, std::memory_order_relaxed);
    m_next.store(0, std::memory_order_relaxed);
    m_added.store(0, std::memory_order_relaxed);
    m_adding.store(false, std::memory_order_relaxed);
    run_parts(pool, [&](int part, int) {
      int64_t held[kSlots];  // the chunk in each slot, or -1
      std::fill(held, held + kSlots, int64_t{-1});
      for (int64_t c; (c = m_next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
        int s = free_slot(held);
        while (s < 0) {  // all slots wait to be added: add, or let the adder run
          if (!try_add(chunks, store_first, dst)) std::this_thread::yield();
          s = free_slot(held);
        }
        T* partial = m_slots.data() + (static_cast<int64_t>(part) * kSlots + s) * m_n;
        compute(c, part, partial);
        held[s] = c;
        m_src[static_cast<size_t>(c)] = partial;
        m_ready[c].store(1, std::memory_order_release);
        try_add(chunks, store_first, dst);
      }
      while (m_added.load(std::memory_order_acquire) < chunks)
        if (!try_add(chunks, store_first, dst)) std::this_thread::yield();
    });
  }

 private:
  int free_slot(const int64_t* held) const {
    const int64_t added = m_added.load(std::memory_order_acquire);
    for (int s = 0; s < kSlots; ++s)
      if (held[s] < added) return s;  // empty (-1) or already added
    return -1;
  }
  // Adds the ready partials next in order unless another thread is adding; false if it could
  // not take the adder's role.
  bool try_add(int64_t chunks, int64_t store_first, T* dst) {
    if (m_adding.exchange(true, std::memory_order_acquire)) return false;
    int64_t c = m_added.load(std::memory_order_relaxed);
    for (; c < chunks && m_ready[c].load(std::memory_order_acquire); ++c) {
      const T* __restrict g = m_src[static_cast<size_t>(c)];
      T* __restrict d = dst;
      const int64_t stored = c == 0 ? store_first : 0;
      for (int64_t e = 0; e < stored; ++e) d[e] = g[e];
      for (int64_t e = stored; e < m_n; ++e) d[e] = d[e] + g[e];
      m_added.store(c + 1, std::memory_order_release);
    }
    m_adding.store(false, std::memory_order_release);
    return true;
  }

  int64_t m_n = 0, m_max_chunks = 0;
  AlignedVector<T> m_slots;                       // kSlots partials per thread
  std::unique_ptr<std::atomic<uint8_t>[]> m_ready;  // chunk c's partial is written
  std::vector<const T*> m_src;                    // where chunk c's partial is
  std::atomic<int64_t> m_next{0}, m_added{0};     // next chunk to take; chunks added so far
  std::atomic<bool> m_adding{false};              // a thread is adding
};

}  // namespace kp::trainer_detail
