// kneepoint study: a design study from YAML to a journal and report.html, report.md, points.csv
// and summary.json. Under `mpirun -np N` the ranks share the design points; rank 0 writes.
#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "tools/cli_common.h"
#include "tools/report/design_figures.h"
#include "tools/report/report_writer.h"
#include "tools/study/case_loader.h"
#include "tools/study/design_space.h"
#include "tools/study/study_runner.h"

namespace kp {

namespace {

// The best designs of each workload, ranked by the first objective, with the other objectives,
// the Pareto flag and the SystemC check of verified designs.
void print_ranking(const StudyResult& r, size_t top) {
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    std::vector<const SystemResult*> ranked;
    size_t infeasible = 0;
    for (const SystemResult& s : r.systems)
      if (s.workload == w) s.rank > 0 ? ranked.push_back(&s) : void(++infeasible);
    std::sort(ranked.begin(), ranked.end(), [](const SystemResult* a, const SystemResult* b) { return a->rank < b->rank; });
    std::printf("\n## Designs ranked by %s: %s (%zu of %zu shown%s)\n\n", objective_name(r.spec.objectives.front()),
                r.workloads[w].name.c_str(), std::min(top, ranked.size()), ranked.size() + infeasible,
                infeasible ? (", " + std::to_string(infeasible) + " infeasible under the constraints").c_str() : "");
    std::printf("| rank | design | chips | batch (samples) | time (s) | energy (kWh) | cost (USD) | Pareto | SystemC T_update vs analytic |\n");
    std::printf("|---:|---|---:|---:|---:|---:|---:|:-:|---:|\n");
    for (size_t i = 0; i < std::min(top, ranked.size()); ++i) {
      const SystemResult& s = *ranked[i];
      const TimePoint& c = s.chosen;
      char verify[32] = "-";
      if (s.verify.done) std::snprintf(verify, sizeof verify, "%+.1f%%", 100 * s.verify.t_update_rel_diff);
      std::printf("| %d | %s | %lld | %lld | %.4g | %.3g | %.3g | %s | %s |\n", s.rank, s.name.c_str(),
                  static_cast<long long>(c.learners), static_cast<long long>(c.batch), c.t_total_s, c.energy_j / 3.6e6,
                  c.cost_usd, s.pareto ? "yes" : "", verify);
    }
  }
}

}  // namespace

void write_study_outputs(const StudyResult& r, const std::string& out) {
  try {
    write_report(r, out);
  } catch (const std::runtime_error& e) {
    throw ConfigError("--out " + out, e.what());  // an unwritable folder is the user's to fix
  }
  const std::string md = report_markdown(r);
  // The answer is the report's first section: print it so the user sees it without opening files;
  // a sweep of many designs gets the ranking instead (the full answer is in report.md).
  const auto tables = md.find("\n## Best batch");
  if (r.systems.size() <= 8) std::printf("%s", md.substr(0, tables).c_str());
  else std::printf("# kneepoint study: %s (%zu design points)\n", r.spec.name.c_str(), r.systems.size());
  if (r.systems.size() > 1 && (!r.spec.sweep.empty() || r.spec.verify_top > 0)) print_ranking(r, 10);
  for (const SystemResult& s : r.systems)
    if (const std::string w = tdp_warning_text(s, s.chosen); !w.empty()) std::fprintf(stderr, "%s\n", w.c_str());
  std::printf("\nreport: %s/report.html (report.md, points.csv, summary.json beside it)\n", out.c_str());
}

int run_study(const Args& args) {
  po::options_description desc("study options");
  std::string file, out;
  bool resume = false;
  int64_t jobs = std::max(1u, std::thread::hardware_concurrency());
  desc.add_options()("study", po::value(&file)->required(), "study YAML")(
      "out", po::value(&out)->default_value("kneepoint-out"), "output folder (journal and report)")(
      "resume", po::bool_switch(&resume), "keep the finished design points of the folder's journal")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker threads per process (analytic fidelity)");
  po::positional_options_description pos;
  pos.add("study", 1);
  po::variables_map vm;
  if (!parse_options("study", "kneepoint study STUDY.yaml [--out DIR] [--resume] [--jobs J]", args, desc, vm, &pos))
    return 0;
  const int job_count = jobs_option("--jobs", jobs);
  // Parsed before MPI starts: a bad study file is the same error on every rank, a clean exit 2.
  const StudySpec spec = parse_study(ConfigDoc::load(file));
  const std::unique_ptr<Transport> net = make_transport();
  if (net->rank() == 0)
    std::fprintf(stderr, "study %s: %zu design points (%zu hardware files x %zu sweep combinations x %zu workloads), "
                 "%s fidelity, %d jobs x %d processes\n", spec.name.c_str(), design_count(spec), spec.hardware.size(),
                 sweep_combinations(spec.sweep), spec.workloads.size(), spec.fidelity.c_str(), job_count, net->size());
  if (net->rank() == 0)  // spec-only or calibrated, per base hardware file (docs/howto_calibrate.md)
    for (const std::string& hw : spec.hardware)
      std::fprintf(stderr, "  device constants of %s: %s\n", hw.c_str(),
                   constants_provenance(load_hardware(hw).calibration).c_str());
  RunOptions opt;
  opt.out_dir = out;
  opt.resume = resume;
  opt.jobs = job_count;
  opt.progress = stderr;
  opt.transport = net.get();
  StudyResult r;
  try {
    r = run_study(spec, opt);
  } catch (const ConfigError& e) {
    if (!net->active()) throw;
    // Unwinding destroys the transport, whose MPI_Abort stops the other ranks: say why first.
    std::fprintf(stderr, "%s\n", e.what());
    std::fflush(stderr);
    throw;
  }
  if (net->rank() != 0) return 0;  // rank 0 gathered every point and writes the outputs
  write_study_outputs(r, out);
  return 0;
}

}  // namespace kp
