// GCC 12 flags its own AVX-512 intrinsics (_mm512_undefined_ps) inside Eigen's float packing.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "models/trainer/layers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "models/trainer/batch_norm.h"
#include "models/trainer/conv2d.h"
#include "models/trainer/dense.h"
#include "models/trainer/simple_layers.h"

namespace kp::trainer_detail {

template <class T>
void he_normal(T* w, int64_t n, int64_t fan_in, std::mt19937_64& rng) {
  normal_fill(w, n, std::sqrt(2.0 / static_cast<double>(std::max<int64_t>(fan_in, 1))), rng);
}

template <class T>
void normal_fill(T* w, int64_t n, double sd, std::mt19937_64& rng) {
  // Box-Muller on the raw engine output: identical on every standard library (unlike
  // std::normal_distribution), so a seed means the same network everywhere.
  constexpr double two_pi = 6.283185307179586;
  for (int64_t i = 0; i < n; i += 2) {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1)) * sd;
    w[i] = static_cast<T>(r * std::cos(two_pi * u2));
    if (i + 1 < n) w[i + 1] = static_cast<T>(r * std::sin(two_pi * u2));
  }
}

template <class T>
void glorot_uniform(T* w, int64_t n, int64_t fan_in, int64_t fan_out, std::mt19937_64& rng) {
  const double a = std::sqrt(6.0 / static_cast<double>(std::max<int64_t>(fan_in + fan_out, 1)));
  for (int64_t i = 0; i < n; ++i)  // 53 random bits per draw, as in he_normal: portable
    w[i] = static_cast<T>((2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53 - 1.0) * a);
}

template <class T>
std::unique_ptr<FusedLayer<T>> make_layer(const ResolvedLayer& l, int64_t max_batch,
                                     GemmWorkspace* ws) {
  switch (l.spec.kind) {
    case LayerKind::Dense: return make_dense<T>(l, max_batch, ws);
    case LayerKind::Conv2d: return make_conv2d<T>(l, max_batch, ws);
    case LayerKind::MaxPool: return make_max_pool<T>(l, max_batch, ws->pool());
    case LayerKind::Relu: return make_relu<T>(l, ws->pool());
    case LayerKind::Flatten: return make_flatten<T>();
    case LayerKind::BatchNorm: return make_batch_norm<T>(l);
    default:
      throw std::invalid_argument("layer \"" + l.spec.name + "\": the trainer has no " +
                                  layer_kind_name(l.spec.kind) + " layer");
  }
}

template std::unique_ptr<FusedLayer<float>> make_layer<float>(const ResolvedLayer&, int64_t,
                                                         GemmWorkspace*);
template std::unique_ptr<FusedLayer<double>> make_layer<double>(const ResolvedLayer&, int64_t,
                                                           GemmWorkspace*);
template void normal_fill<float>(float*, int64_t, double, std::mt19937_64&);
template void normal_fill<double>(double*, int64_t, double, std::mt19937_64&);
template void he_normal<float>(float*, int64_t, int64_t, std::mt19937_64&);
template void he_normal<double>(double*, int64_t, int64_t, std::mt19937_64&);
template void glorot_uniform<float>(float*, int64_t, int64_t, int64_t, std::mt19937_64&);
template void glorot_uniform<double>(double*, int64_t, int64_t, int64_t, std::mt19937_64&);

}  // namespace kp::trainer_detail
