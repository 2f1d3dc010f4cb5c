#pragma once
// SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators",
// OOPSLA): portable, so shuffles and samples are the same on every platform for a seed.
#include <cstdint>

namespace kp {

constexpr uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ull;

// The mix of x + gamma: a hash of x (seeds, epochs, chained states).
constexpr uint64_t splitmix64(uint64_t x) {
  x += kSplitMixGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The generator: advances the state by gamma and returns the mix of the new state.
inline uint64_t splitmix64_next(uint64_t& state) {
  const uint64_t r = splitmix64(state);
  state += kSplitMixGamma;
  return r;
}

}  // namespace kp
