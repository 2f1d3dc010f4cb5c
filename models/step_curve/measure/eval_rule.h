#pragma once
// How often a curve trial evaluates on the validation set. One pass over Fashion-MNIST's 10,000
// held-out images costs about as much as training on a few thousand samples (forward only), so a
// fixed K (e.g. every 50 steps) makes evaluation dominate at small batches (b=16: 50 steps see 800
// samples) and is coarse at large ones (b=8192 reaches the target in ~200 steps).
// Rule: evaluate every `eval_samples` training samples, K(M) = max(1, ceil(eval_samples / M))
// steps. The evaluation overhead is then the same at every batch size (bench_curve_cost prints
// it), and the resolution K/N(M) = eval_samples / (M N_inf + alpha) is best where N is smallest
// relative to K. Reporting the first evaluation at or below the target overstates the step count
// by K/2 on average, i.e. adds ~eval_samples/2 to the fitted alpha and nothing to N_inf.
// A curve trial only asks "error <= target?" (Trainer::error_at_most), which stops counting once
// the errors exceed the target: an evaluation at error 0.24 against 0.12 reads half the set.
#include <algorithm>
#include <cstdint>

namespace kp {

inline constexpr int64_t k_default_eval_samples = 8192;

inline int64_t eval_every_for(int64_t batch, int64_t eval_samples) {
  return std::max<int64_t>(1, (eval_samples + batch - 1) / std::max<int64_t>(batch, 1));
}

}  // namespace kp
