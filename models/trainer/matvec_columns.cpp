#include "models/trainer/matvec_columns.h"

#include <cstdio>
#include <cstdlib>

#include "models/trainer/column_panels.h"

namespace kp::trainer_detail {

void matvec_columns(const float* w, int64_t rows, int64_t lo, int64_t hi, const float* x,
                    float* y) {
#ifdef __AVX512F__
  if (rows > kColumnOrderMaxRows) std::abort();  // the layers keep Eigen's product above
  one_column_panel(
      rows, lo, hi, x, y,
      [w, rows](int64_t j, int64_t i, __mmask16 m) {
        return _mm512_maskz_loadu_ps(m, w + j * rows + i);
      },
      [](int64_t) {});
#else
  (void)w, (void)rows, (void)lo, (void)hi, (void)x, (void)y;
  std::fprintf(stderr, "matvec_columns: built without AVX-512 (an internal bug to call it)\n");
  std::abort();
#endif
}

}  // namespace kp::trainer_detail
