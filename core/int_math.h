#pragma once
// Integer rounding shared by the hardware models (folds of a GEMM on an array, cycles of a
// transfer) and the trainer (register tiles, blocks, chunks of samples). Contract: a >= 0, b > 0.
#include <cstdint>

namespace kp {

// ceil(a / b).
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
// The smallest multiple of b that is >= a.
constexpr int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// a * b, or false when it overflows int64 (sizes from user input multiply before they are checked).
inline bool checked_mul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

}  // namespace kp
