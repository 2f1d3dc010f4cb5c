#pragma once
// Buffers aligned to 64 bytes (a cache line; at least Eigen's vector width). Why: Eigen peels
// unaligned heads and tails with scalar code, so the summation order (and the float result) of
// a kernel depends on the buffer's address; with every buffer aligned the arithmetic is the same
// wherever malloc puts it, which keeps a seed's trajectory bit-identical when other trials run
// in other threads. Buffers of 256 KiB or more are rounded up to whole 2 MiB huge pages,
// 2 MiB-aligned and marked for transparent huge pages (THP is "madvise" here), for two reasons:
// - first-touch faults cost ~12 us per 4 KiB page in this VM, and a Simple-CNN network at batch
//   256 touches ~200 MiB when built;
// - on 4 KiB pages the cache sets a buffer falls in depend on which physical pages the kernel
//   hands out, so the speed of a memory-bound step changed from process to process: the MLP's
//   batch-1 update (its 1.07 MB weights and velocities, below the old 2 MiB threshold) took
//   58-141 us in six processes on the AMD EPYC Zen 4 host of 2026-12-06, each steady within
//   itself, and 48-54 us in six processes on huge pages. The cost: at most 1.75 MiB unused per
//   such buffer (about 30 MiB of huge pages for an MLP trial).
// Header-only and Eigen-free: public trainer headers must not need Eigen.
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace kp {

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  static constexpr std::size_t kMinHuge = std::size_t{256} << 10;  // rounded up to kHuge from here
  CacheAlignedAllocator() = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = reserved_bytes(n);
    void* p = ::operator new(bytes, align(bytes));
    if (bytes >= kHuge) madvise(p, bytes, MADV_HUGEPAGE);  // a hint; may fail
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) { ::operator delete(p, align(reserved_bytes(n))); }
  // The bytes allocated for n elements: whole huge pages from kMinHuge on.
  static std::size_t reserved_bytes(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    return bytes >= kMinHuge ? (bytes + kHuge - 1) / kHuge * kHuge : bytes;
  }
  static std::align_val_t align(std::size_t bytes) {
    return std::align_val_t{bytes >= kHuge ? kHuge : 64};
  }
  template <class U>
  bool operator==(const CacheAlignedAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheAlignedAllocator<U>&) const { return false; }
};

template <class T>
using AlignedVector = std::vector<T, CacheAlignedAllocator<T>>;

}  // namespace kp
