// kneepoint validate published FILE.csv: predicted vs published training throughput, row by row,
// with the median and worst |error| and the ratios between rows that share a workload (those do
// not depend on a global efficiency factor, so they test the model's shape effects).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "tools/cli_common.h"
#include "tools/validate/published_validation.h"

namespace kp {
namespace {

std::string label(const PublishedRow& r) {
  const size_t slash = r.hw_text.find_last_of('/');
  std::string hw = slash == std::string::npos ? r.hw_text : r.hw_text.substr(slash + 1);
  if (hw.size() > 5 && hw.substr(hw.size() - 5) == ".yaml") hw.resize(hw.size() - 5);
  return hw + " " + r.precision + " x" + std::to_string(r.chips);
}

}  // namespace

int run_validate_published(const Args& args) {
  po::options_description desc("validate published options");
  std::string suite, file, root, format, fidelity;
  desc.add_options()("suite", po::value(&suite)->required(), "published")(
      "file", po::value(&file)->required(), "CSV: hw,workload,precision,chips,batch_per_chip,samples_per_s,source")(
      "root", po::value(&root)->default_value("."), "folder the CSV's relative hw and workload paths start from")(
      "format", po::value(&format)->default_value("text"), "text|csv")(
      "fidelity", po::value(&fidelity)->default_value("analytic"), "analytic|systemc");
  po::positional_options_description pos;
  pos.add("suite", 1).add("file", 1);
  po::variables_map vm;
  if (!parse_options("validate", "kneepoint validate published FILE.csv [--root DIR] [--format text|csv] [--fidelity analytic|systemc]",
                     args, desc, vm, &pos))
    return 0;
  if (format != "text" && format != "csv") throw ConfigError("--format", "expected text or csv, got \"" + format + "\"");
  if (fidelity != "analytic" && fidelity != "systemc")
    throw ConfigError("--fidelity", "expected analytic or systemc, got \"" + fidelity + "\"");
  const std::vector<PublishedRow> rows = read_published(file, root);
  const std::vector<PublishedPrediction> pred = predict_published(rows, fidelity);
  if (format == "csv") {
    std::printf("line,hw,workload,precision,chips,batch_per_chip,measured_samples_per_s,predicted_samples_per_s,"
                "t_update_s,error_pct\n");
    for (size_t i = 0; i < rows.size(); ++i)
      std::printf("%d,%s,%s,%s,%lld,%lld,%.6g,%.6g,%.6g,%.2f\n", rows[i].line, rows[i].hw_text.c_str(),
                  rows[i].workload_text.c_str(), rows[i].precision.c_str(), static_cast<long long>(rows[i].chips),
                  static_cast<long long>(rows[i].batch_per_chip), rows[i].samples_per_s, pred[i].samples_per_s,
                  pred[i].t_update_s, pred[i].error_pct);
    return 0;
  }
  std::printf("%s vs the model (%s fidelity, spec-only: no calibration)\n", file.c_str(), fidelity.c_str());
  std::printf("  %-5s %-26s %5s | %10s %10s %9s %7s\n", "line", "system", "batch", "measured", "predicted", "T_update",
              "error");
  std::vector<double> abs_err;
  size_t worst = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::printf("  %-5d %-26s %5lld | %10.1f %10.1f %7.1f ms %+6.1f%%\n", rows[i].line, label(rows[i]).c_str(),
                static_cast<long long>(rows[i].batch_per_chip), rows[i].samples_per_s, pred[i].samples_per_s,
                1e3 * pred[i].t_update_s, pred[i].error_pct);
    abs_err.push_back(std::fabs(pred[i].error_pct));
    if (abs_err.back() > abs_err[worst]) worst = i;
  }
  std::vector<double> sorted = abs_err;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  std::printf("  median |error| %.1f%%, worst %.1f%% (line %d), %zu rows (samples per second)\n", median, abs_err[worst],
              rows[worst].line, n);
  const auto pairs = published_ratio_pairs(rows);
  if (!pairs.empty()) std::printf("ratios between rows that share a workload (b / a):\n");
  for (const auto& [a, b] : pairs) {
    const double meas = rows[b].samples_per_s / rows[a].samples_per_s;
    const double p = pred[b].samples_per_s / pred[a].samples_per_s;
    std::printf("  %-26s / %-26s measured %6.3f predicted %6.3f error %+6.1f%%\n", label(rows[b]).c_str(),
                label(rows[a]).c_str(), meas, p, 100.0 * (p - meas) / meas);
  }
  return 0;
}

}  // namespace kp
