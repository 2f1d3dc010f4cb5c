#pragma once
// The Halton quasi-random sequence (J. H. Halton, "On the efficiency of certain quasi-random
// sequences of points in evaluating multi-dimensional integrals", Numer. Math. 2, 1960): point i
// has coordinate d = the radical inverse of i in the d-th prime base (digits of i mirrored about
// the radix point), e.g. base 2: 1/2, 1/4, 3/4, 1/8, ...; base 3: 1/3, 2/3, 1/9, 4/9, ...
// Shallue et al. 2018 tune each batch size by quasi-random search; a low-discrepancy sequence
// covers the (log lr, log(1-momentum)) square more evenly than random draws with few trials.
#include <cstdint>

namespace kp {

// Radical inverse of `index` in `base` (>= 2), in [0, 1). index 0 gives 0.
inline double radical_inverse(uint64_t index, uint32_t base) {
  double inv = 1.0 / base, f = inv, r = 0.0;
  while (index > 0) {
    r += f * static_cast<double>(index % base);
    index /= base;
    f *= inv;
  }
  return r;
}

// Coordinate `dim` (0-based: bases 2, 3, 5, 7, 11, 13) of Halton point `index`.
inline double halton(uint64_t index, int dim) {
  static constexpr uint32_t primes[] = {2, 3, 5, 7, 11, 13};
  return radical_inverse(index, primes[dim]);
}

}  // namespace kp
