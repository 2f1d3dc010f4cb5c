#pragma once
// Validation of T_update against published training throughput (e.g. NVIDIA DeepLearningExamples).
// Contract: read_published() parses a CSV of rows
//   hw,workload,precision,chips,batch_per_chip,samples_per_s,source
// (columns in any order after one header line; `#` lines and blank lines skipped; optional
// columns tp, pp, micro_batch, recompute, zero) and throws one ConfigError with every problem at
// file:line:col; hw and workload paths are relative to `root` (the repository) unless absolute.
// Layouts other than plain data parallelism (tp = pp = 1, zero = 0, recompute = none,
// micro_batch = batch_per_chip) are refused at their field: validate does not model them yet.
// predict_published() simulates each row: chips learners at chips x batch_per_chip samples with
// the row's precision preset overriding the workload's.
#include <cstdint>
#include <string>
#include <vector>

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
};

std::vector<PublishedRow> read_published(const std::string& path, const std::string& root);

struct PublishedPrediction {
  double samples_per_s = 0;  // chips x batch_per_chip / T_update
  double t_update_s = 0;
  double error_pct = 0;      // 100 x (predicted - measured) / measured
};

// fidelity: "analytic" or "systemc". Throws ConfigError (at the row) for a row its hardware
// cannot run: too many chips, or a precision its arrays lack.
std::vector<PublishedPrediction> predict_published(const std::vector<PublishedRow>& rows, const std::string& fidelity);

// Pairs (a, b), a < b, of rows with the same workload that differ in hardware or precision at
// the same chip count, or only in chip count: their throughput ratios b / a are compared.
std::vector<std::pair<size_t, size_t>> published_ratio_pairs(const std::vector<PublishedRow>& rows);

}  // namespace kp
