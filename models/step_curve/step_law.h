#pragma once
// The step-curve law: optimizer updates needed to reach a target vs. global batch size M.
//   N(M) = N_inf + alpha / M                       (Perrone et al. 2019, arXiv 1911.06459)
// which is McCandlish et al. 2018 (arXiv 1812.06162) S(B) = S_min (1 + B_crit / B) with
// N_inf = S_min, alpha = E_min (examples at small batch) and B_crit = alpha / N_inf.
// Contract: n_inf >= 0 and alpha >= 0 (a fit guarantees it); batch > 0. With n_inf == 0 the curve
// never plateaus and b_crit() is +infinity.
#include <limits>

namespace kp {

struct StepLaw {
  double n_inf = 0.0;  // steps in the large-batch limit (S_min)
  double alpha = 0.0;  // examples in the small-batch limit (E_min), steps * batch

  double steps(double batch) const { return n_inf + alpha / batch; }

  double b_crit() const {
    return n_inf > 0.0 ? alpha / n_inf : std::numeric_limits<double>::infinity();
  }
};

}  // namespace kp
