#include "sim/fold_timing.h"

#include <stdexcept>

#include "core/int_math.h"

namespace kp {

FoldMapping fold_mapping(Dataflow dataflow, const GemmShape& gemm) {
  switch (dataflow) {
    case Dataflow::OutputStationary: return {gemm.m, gemm.n, gemm.k};
    case Dataflow::WeightStationary: return {gemm.k, gemm.n, gemm.m};
    case Dataflow::InputStationary: return {gemm.k, gemm.m, gemm.n};
  }
  return {gemm.m, gemm.n, gemm.k};
}

FoldTiming fold_timing(Dataflow dataflow, int64_t rows, int64_t cols, const GemmShape& gemm) {
  if (rows < 1 || cols < 1 || gemm.m < 1 || gemm.n < 1 || gemm.k < 1) {
    throw std::invalid_argument("fold_timing: array and GEMM sizes must be >= 1");
  }
  const FoldMapping map = fold_mapping(dataflow, gemm);
  FoldTiming t;
  t.row_folds = ceil_div(map.sr, rows);
  t.col_folds = ceil_div(map.sc, cols);
  t.folds = t.row_folds * t.col_folds;
  const bool os = dataflow == Dataflow::OutputStationary;
  // os: operands enter skewed from two edges and results stay in place; ws/is: R cycles to load
  // the stationary operand, then stream T and drain through R + C - 2.
  t.cycles_per_fold = os ? map.t + rows + cols - 2 : 2 * rows + cols + map.t - 2;
  t.total_cycles = t.folds * t.cycles_per_fold - 1;
  t.compute_cycles = t.folds * (os ? t.cycles_per_fold : t.cycles_per_fold + cols - 1);
  t.macs = gemm.m * gemm.n * gemm.k;
  const double pes = static_cast<double>(rows) * static_cast<double>(cols);
  // Used PEs summed over folds is Sr*Sc (the partial folds cover exactly the remainder).
  t.mapping_efficiency =
      static_cast<double>(map.sr) * static_cast<double>(map.sc) / (static_cast<double>(t.folds) * pes);
  t.overall_util = static_cast<double>(t.macs) / (static_cast<double>(t.total_cycles) * pes);
  t.compute_util = static_cast<double>(t.macs) / (static_cast<double>(t.compute_cycles) * pes);
  return t;
}

}  // namespace kp
