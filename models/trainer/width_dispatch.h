#pragma once
// A register tile's width (or a batch) known only at run time, turned into a compile-time
// constant: the kernels keep one accumulator per column in registers, so each width is its own
// instantiation (the Winograd products, the input gradient from the panels, a dense layer's
// input gradient by columns). Internal to kp_trainer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>

namespace kp::trainer_detail {

template <int64_t kMin, class F, int64_t... kI>
bool call_with_width(int64_t n, F& f, std::integer_sequence<int64_t, kI...>) {
  return ((n == kMin + kI && (f(std::integral_constant<int64_t, kMin + kI>{}), true)) || ...);
}

// Calls f(std::integral_constant<int64_t, n>{}) for n in [kMin, kMax]; any other n is an
// internal bug: aborts, naming `what`.
template <int64_t kMin, int64_t kMax, class F>
void with_width(int64_t n, const char* what, F&& f) {
  static_assert(kMin >= 1 && kMin <= kMax);
  if (call_with_width<kMin>(n, f, std::make_integer_sequence<int64_t, kMax - kMin + 1>{}))
    return;
  std::fprintf(stderr, "%s: width %lld outside [%lld, %lld] (internal bug)\n", what,
               static_cast<long long>(n), static_cast<long long>(kMin),
               static_cast<long long>(kMax));
  std::abort();
}

}  // namespace kp::trainer_detail
