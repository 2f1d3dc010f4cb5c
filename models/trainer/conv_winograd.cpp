#include "models/trainer/conv_winograd.h"

#include <cstdio>
#include <cstdlib>

#include "core/int_math.h"
#include "models/trainer/gemm.h"
#include "models/trainer/winograd_f5.h"
#include "models/trainer/winograd_tiles.h"
#include "models/trainer/winograd_transforms.h"

namespace kp::trainer_detail {

bool WinogradConv::suits(const ResolvedLayer& l) {
#ifdef __AVX512F__
  return sgemm_available() && l.spec.kind == LayerKind::Conv2d && l.spec.stride == 1 &&
         l.spec.kernel == 5 && l.in.c >= 8;
#else
  (void)l;
  return false;
#endif
}

int WinogradConv::tile_side(int64_t ho, int64_t wo) {
  const auto products = [&](int64_t m) {
    return ceil_div(ho, m) * ceil_div(wo, m) * (m + 4) * (m + 4);
  };
  return products(5) < products(4) ? 5 : 4;
}

std::unique_ptr<WinogradConv> WinogradConv::make(const ResolvedLayer& l, int64_t samples,
                                                int m) {
  if (m == 0) m = tile_side(l.out.h, l.out.w);
#ifdef __AVX512F__
  if (m == 4) return std::make_unique<WinogradTiles<winograd::F4Scheme>>(l, samples);
  if (m == 5) return std::make_unique<WinogradTiles<winograd::F5Scheme>>(l, samples);
#endif
  // suits() is false without AVX-512, so no layer asks for one there.
  (void)l;
  (void)samples;
  std::fprintf(stderr, "WinogradConv: no tiles of side %d in this build (internal bug)\n", m);
  std::abort();
}

}  // namespace kp::trainer_detail
