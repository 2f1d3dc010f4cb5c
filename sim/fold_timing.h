#pragma once
// SCALE-Sim v2 fold timing of one GEMM on one R x C systolic array (scalesim-project/scale-sim-v2,
// compute/systolic_compute_{os,ws,is}.py). Contract: every field reproduces what SCALE-Sim's
// COMPUTE_REPORT says for the layer when memory never stalls (InterfaceBandwidth: CALC).
//
// Mapping (see ../shared/REFERENCES.md), with M = output pixels / GEMM rows, N = filters / GEMM
// cols, K = window FH*FW*Cin:
//   os: Sr = M, Sc = N, T = K, cycles per fold = T + R + C - 2
//   ws: Sr = K, Sc = N, T = M, cycles per fold = 2R + C + T - 2
//   is: Sr = K, Sc = M, T = N, cycles per fold = 2R + C + T - 2
// folds = ceil(Sr/R) * ceil(Sc/C), run back to back; Total Cycles = folds * cpf - 1 (SCALE-Sim
// reports the index of the last output write, not a count).
//
// Hot path of sweeps: constant time, no allocation.
#include <cstdint>

#include "core/hw_spec.h"

namespace kp {

struct GemmShape {
  int64_t m, n, k;
};

// Where a GEMM lands on the array for one dataflow.
struct FoldMapping {
  int64_t sr;  // spatial extent mapped on the array rows
  int64_t sc;  // spatial extent mapped on the array cols
  int64_t t;   // temporal extent streamed through each fold
};

struct FoldTiming {
  int64_t row_folds = 0, col_folds = 0, folds = 0;
  int64_t cycles_per_fold = 0;
  int64_t total_cycles = 0;    // folds * cycles_per_fold - 1
  // SCALE-Sim's per-fold accounting window summed over folds: cpf for os, cpf + C - 1 for ws/is
  // (its ws/is fold window counts the skewed drain of the last column, which the next fold hides).
  int64_t compute_cycles = 0;
  int64_t macs = 0;            // M * N * K
  double mapping_efficiency = 0;  // mean over folds of used PEs / (R*C), in [0, 1]
  double overall_util = 0;        // macs / (total_cycles * R * C), SCALE-Sim's "Overall Util"
  double compute_util = 0;        // macs / (compute_cycles * R * C), SCALE-Sim's "Compute Util"
};

FoldMapping fold_mapping(Dataflow dataflow, const GemmShape& gemm);

// Preconditions: rows, cols, gemm.m, gemm.n, gemm.k >= 1 (std::invalid_argument otherwise).
FoldTiming fold_timing(Dataflow dataflow, int64_t rows, int64_t cols, const GemmShape& gemm);

}  // namespace kp
