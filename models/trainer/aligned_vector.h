#pragma once
// Buffers aligned to 64 bytes (a cache line; at least Eigen's vector width). Why: Eigen peels
// unaligned heads and tails with scalar code, so the summation order (and the float result) of
// a kernel depends on the buffer's address; with every buffer aligned the arithmetic is the same
// wherever malloc puts it, which keeps a seed's trajectory bit-identical when other trials run
// in other threads. Header-only and Eigen-free: public trainer headers must not need Eigen.
#include <cstddef>
#include <new>
#include <vector>

namespace kp {

template <class T>
struct CacheAlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheAlignedAllocator() = default;
  template <class U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, kAlign); }
  template <class U>
  bool operator==(const CacheAlignedAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheAlignedAllocator<U>&) const { return false; }
};

template <class T>
using AlignedVector = std::vector<T, CacheAlignedAllocator<T>>;

}  // namespace kp
