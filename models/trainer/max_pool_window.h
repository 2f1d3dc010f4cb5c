#pragma once
// One sample's max-pool forward for float on AVX-512 (MaxPool in simple_layers.cpp). Internal to
// kp_trainer; AVX-512 builds only (sgemm_available()).
//
// Why not MaxPool's scalar loop: vectorised by GCC, it kept each window's running maximum and
// index in y and arg, so every window position's compare read back the masked stores of the
// position before (a store-to-load forward that masked stores do not get): a third of the
// pool's samples sat on that compare (perf annotate, Simple CNN b=128). Here they stay in
// registers over the window.
#include <cstdint>

namespace kp::trainer_detail {

// Channels-last input c x h x w, output c x ho x wo, square windows k at stride s, the first
// window starting pt rows above and pl columns left of the input.
struct PoolGeometry {
  int64_t c, h, w, ho, wo, k, s, pt, pl;
};

// Windows of at most this many positions (k * k); larger ones take MaxPool's scalar loop.
constexpr int64_t kPoolWindowMax = 64;

// For each output (oh, ow) and channel j, over the window's positions inside the input in row
// order: y = the largest input by `>` starting from -inf (the first of equal maxima wins, NaN
// never does) and arg = its index in xn; where no input beats -inf (all -inf or NaN), y = -inf
// and arg = the index of the window's first position. With `relu`, y goes through
// x > 0 ? x : 0. The same values as MaxPool's scalar loop, bit for bit. Every window has at
// least one position inside the input. Aborts without AVX-512 or above kPoolWindowMax.
void max_pool_sample_f32(const PoolGeometry& g, const float* xn, bool relu, float* y,
                         int32_t* arg);

}  // namespace kp::trainer_detail
