#pragma once
// Buffers aligned to 64 bytes (a cache line; at least Eigen's vector width). Why: Eigen peels
// unaligned heads and tails with scalar code, so the summation order (and the float result) of
// a kernel depends on the buffer's address; with every buffer aligned the arithmetic is the same
// wherever malloc puts it, which keeps a seed's trajectory bit-identical when other trials run
// in other threads. Buffers of 2 MiB or more are 2 MiB-aligned and marked for transparent huge
// pages (THP is "madvise" here): first-touch faults cost ~12 us per 4 KiB page in this VM, and a
// Simple-CNN network at batch 256 touches ~200 MiB when built. Header-only and Eigen-free:
// public trainer headers must not need Eigen.
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace kp {

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  CacheAlignedAllocator() = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    void* p = ::operator new(bytes, align(bytes));
    if (bytes >= kHuge) madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);  // a hint; may fail
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) { ::operator delete(p, align(n * sizeof(T))); }
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
