#pragma once
// Validation of T_update against published training throughput (e.g. NVIDIA DeepLearningExamples).
// Contract: read_published() parses a CSV of rows
//   hw,workload,precision,chips,batch_per_chip,samples_per_s,source
// (columns in any order after one header line; `#` lines and blank lines skipped; optional
// columns tp, pp, micro_batch, recompute, zero) and throws one ConfigError with every problem at
// file:line:col; hw and workload paths are relative to `root` (the repository) unless absolute.
// The optional columns give the run's parallel layout (core/layout_spec.h; empty fields take the
// defaults: tp = pp = 1, zero 0, recompute none, micro_batch automatic), dp = chips / (tp pp).
// predict_published() simulates each row: chips at chips x batch_per_chip samples (the global
// batch) with the row's precision preset overriding the workload's, under its layout when a
// layout column is given (sim/layout_search.h), else plain data parallelism.
#include <cstdint>
#include <string>
#include <vector>

#include "core/layout_spec.h"

namespace kp {

struct PublishedRow {
  std::string origin;
  int line = 0;
  std::string hw, workload;        // resolved paths
  std::string hw_text, workload_text;  // as written
  std::string precision;           // a preset (core/precision.h)
  int64_t chips = 0, batch_per_chip = 0;
  double samples_per_s = 0;        // measured
  std::string source;
  int precision_col = 0, chips_col = 0;  // where those fields start (errors found when predicting)
  bool has_layout = false;         // a layout column has a value
  Layout layout;
  int layout_col = 0;              // the first layout field written, and its column name
  std::string layout_key;
};

std::vector<PublishedRow> read_published(const std::string& path, const std::string& root);

struct PublishedPrediction {
  double samples_per_s = 0;  // chips x batch_per_chip / T_update
  double t_update_s = 0;
  double error_pct = 0;      // 100 x (predicted - measured) / measured
};

// fidelity: "analytic" or "systemc". Throws ConfigError (at the row) for a row its hardware
// cannot run: too many chips, a precision its arrays lack, a layout that does not divide the
// chips or does not fit device memory.
std::vector<PublishedPrediction> predict_published(const std::vector<PublishedRow>& rows, const std::string& fidelity);

// Pairs (a, b), a < b, of rows with the same workload that differ in hardware or precision at
// the same chip count, or only in chip count: their throughput ratios b / a are compared.
std::vector<std::pair<size_t, size_t>> published_ratio_pairs(const std::vector<PublishedRow>& rows);

}  // namespace kp
