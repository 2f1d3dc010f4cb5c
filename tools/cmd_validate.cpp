// kneepoint validate pollux DIR: predicted vs measured step_time and sync_time for every row of the
// Pollux (OSDI'21) T4 traces, with the median absolute percentage error of each.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "tools/cli_common.h"
#include "tools/study/update_case.h"
#include "tools/validate/pollux_validation.h"

namespace kp {

namespace {

struct Scored {
  PlacementRow row;
  PolluxStepPrediction pred;
  double step_ape = 0, sync_ape = 0;  // percent; sync_ape < 0 when not scored (one GPU)
};

double ape(double pred, double meas) { return meas > 0 ? 100.0 * std::fabs(pred - meas) / meas : 0.0; }

void print_worst(const std::vector<Scored>& rows, bool sync) {
  std::vector<const Scored*> v;
  for (const Scored& s : rows)
    if (!sync || s.sync_ape >= 0) v.push_back(&s);
  std::sort(v.begin(), v.end(), [sync](const Scored* a, const Scored* b) {
    return sync ? a->sync_ape > b->sync_ape : a->step_ape > b->step_ape;
  });
  std::printf("  worst %s rows:\n", sync ? "sync_time" : "step_time");
  for (size_t i = 0; i < std::min<size_t>(5, v.size()); ++i) {
    const Scored& s = *v[i];
    std::printf("    line %4d  placement %-5s local_bsz %5lld  measured %.4f s  predicted %.4f s  APE %.0f%%\n",
                s.row.line, s.row.placement().c_str(), static_cast<long long>(s.row.local_bsz),
                sync ? s.row.sync_time_s : s.row.step_time_s, sync ? s.pred.sync_time_s : s.pred.step_time_s,
                sync ? s.sync_ape : s.step_ape);
  }
}

}  // namespace

int run_validate(const Args& args) {
  if (!args.empty() && args[0] == "published") return run_validate_published(args);
  po::options_description desc("validate options");
  std::string suite, dir, hw, workload, format, fidelity;
  std::vector<std::string> sets;
  desc.add_options()("suite", po::value(&suite)->required(), "trace suite (pollux)")(
      "dir", po::value(&dir)->required(), "folder with placements.csv and scalability.csv")(
      "hw", po::value(&hw)->default_value("hw_configs/t4_cluster.yaml"), "hardware YAML")(
      "workload", po::value(&workload)->default_value("workloads/resnet18_cifar10.yaml"), "workload YAML")(
      "format", po::value(&format)->default_value("text"), "text|csv")(
      "fidelity", po::value(&fidelity)->default_value("analytic"), "analytic|systemc")(
      "set", po::value(&sets)->composing(), "dotted.key=value override (repeatable), e.g. to test a factor");
  po::positional_options_description pos;
  pos.add("suite", 1).add("dir", 1);
  po::variables_map vm;
  if (!parse_options("validate", "kneepoint validate pollux DIR | published FILE.csv [--hw F] [--workload F] [--format text|csv] [--fidelity analytic|systemc] [--set k=v]",
                     args, desc, vm, &pos))
    return 0;
  if (suite != "pollux") throw ConfigError("validate", "expected the suite pollux or published, got \"" + suite + "\"");
  if (format != "text" && format != "csv")
    throw ConfigError("--format", "expected text or csv, got \"" + format + "\"");
  if (fidelity != "analytic" && fidelity != "systemc")
    throw ConfigError("--fidelity", "expected analytic or systemc, got \"" + fidelity + "\"");
  const Case c = load_update_case(hw, workload, sets);  // no N(M): never reads or measures the curve
  const std::vector<std::pair<std::string, std::vector<PlacementRow>>> files = {
      {"placements.csv", read_placements(dir + "/placements.csv")},
      {"scalability.csv", read_scalability(dir + "/scalability.csv")}};
  if (format == "csv")
    std::printf("file,line,placement,learners,local_bsz,step_measured_s,step_predicted_s,step_ape_pct,"
                "sync_measured_s,sync_predicted_s,sync_ape_pct,allreduce_total_s\n");
  else
    std::printf("%s on %s (%s fidelity) vs Pollux traces in %s\n"
                "sync_time is compared with allreduce_exposed: AdaptDL times it with CUDA events from the last\n"
                "parameter's gradient hook to the end of DDP's gradient synchronisation (adaptdl/torch/\n"
                "parallel.py), i.e. the all-reduce not hidden behind backward, plus any wait for a slower replica.\n",
                c.workload.name.c_str(), c.hw.name.c_str(), fidelity.c_str(), dir.c_str());
  for (const auto& [name, rows] : files) {
    std::vector<Scored> scored;
    std::vector<double> sp, sm, yp, ym;
    const std::vector<PolluxStepPrediction> preds = predict_pollux_rows(c, rows, fidelity);
    for (size_t i = 0; i < rows.size(); ++i) {
      const PlacementRow& row = rows[i];
      Scored s{row, preds[i], 0, -1};
      s.step_ape = ape(s.pred.step_time_s, row.step_time_s);
      sp.push_back(s.pred.step_time_s);
      sm.push_back(row.step_time_s);
      if (row.learners() > 1) {  // one GPU has no all-reduce: its sync_time is not scored
        s.sync_ape = ape(s.pred.sync_time_s, row.sync_time_s);
        yp.push_back(s.pred.sync_time_s);
        ym.push_back(row.sync_time_s);
      }
      scored.push_back(s);
    }
    if (format == "csv") {
      for (const Scored& s : scored)
        std::printf("%s,%d,%s,%lld,%lld,%.6g,%.6g,%.2f,%.6g,%.6g,%s,%.6g\n", name.c_str(), s.row.line,
                    s.row.placement().c_str(), static_cast<long long>(s.row.learners()),
                    static_cast<long long>(s.row.local_bsz), s.row.step_time_s, s.pred.step_time_s, s.step_ape,
                    s.row.sync_time_s, s.pred.sync_time_s,
                    s.sync_ape >= 0 ? std::to_string(s.sync_ape).c_str() : "", s.pred.allreduce_s);
      continue;
    }
    std::printf("\n%s (%zu rows)\n", name.c_str(), scored.size());
    std::printf("  %-5s %-9s %3s %5s | %9s %9s %6s | %9s %9s %6s\n", "line", "placement", "P", "bsz",
                "step meas", "step pred", "APE%", "sync meas", "sync pred", "APE%");
    for (const Scored& s : scored) {
      std::printf("  %-5d %-9s %3lld %5lld | %9.4f %9.4f %6.1f | %9.4f %9.4f ", s.row.line,
                  s.row.placement().c_str(), static_cast<long long>(s.row.learners()),
                  static_cast<long long>(s.row.local_bsz), s.row.step_time_s, s.pred.step_time_s, s.step_ape,
                  s.row.sync_time_s, s.pred.sync_time_s);
      if (s.sync_ape >= 0) std::printf("%6.1f\n", s.sync_ape);
      else std::printf("%6s\n", "-");
    }
    std::printf("  median APE step_time %.1f%% (goal <= 25%%), sync_time %.1f%% (goal <= 35%%, %zu multi-GPU rows)\n",
                median_ape(sp, sm), median_ape(yp, ym), yp.size());
    print_worst(scored, false);
    print_worst(scored, true);
  }
  return 0;
}

}  // namespace kp
