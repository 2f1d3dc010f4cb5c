#pragma once
// Uniform floats in [-1, 1) from a seed, for the trainer's tests (each had its own copy); V is
// the container (std::vector, or an aligned one where a kernel wants 64-byte alignment).
#include <cstdint>
#include <random>
#include <vector>

namespace kp::test {

template <class V = std::vector<float>>
V random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  V v(n);
  for (float& e : v) e = u(rng);
  return v;
}

}  // namespace kp::test
