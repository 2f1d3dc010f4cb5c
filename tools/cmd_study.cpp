// kneepoint study: a design study from YAML to a journal and report.html, report.md, points.csv
// and summary.json. Under `mpirun -np N` the ranks share the design points; rank 0 writes.
#include <cstdio>
#include <thread>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "tools/cli_common.h"
#include "tools/report/report_writer.h"
#include "tools/study/design_space.h"
#include "tools/study/study_runner.h"

namespace kp {

void write_study_outputs(const StudyResult& r, const std::string& out) {
  try {
    write_report(r, out);
  } catch (const std::runtime_error& e) {
    throw ConfigError("--out " + out, e.what());  // an unwritable folder is the user's to fix
  }
  const std::string md = report_markdown(r);
  // The answer is the report's first section: print it so the user sees it without opening files.
  const auto tables = md.find("\n## Best batch");
  std::printf("%s\n", md.substr(0, tables).c_str());
  std::printf("report: %s/report.html (report.md, points.csv, summary.json beside it)\n", out.c_str());
}

int run_study(const Args& args) {
  po::options_description desc("study options");
  std::string file, out;
  bool resume = false;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  desc.add_options()("study", po::value(&file)->required(), "study YAML")(
      "out", po::value(&out)->default_value("kneepoint-out"), "output folder (journal and report)")(
      "resume", po::bool_switch(&resume), "keep the finished design points of the folder's journal")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker threads per process (analytic fidelity)");
  po::positional_options_description pos;
  pos.add("study", 1);
  po::variables_map vm;
  if (!parse_options("study", "kneepoint study STUDY.yaml [--out DIR] [--resume] [--jobs J]", args, desc, vm, &pos))
    return 0;
  if (jobs < 1) throw ConfigError("--jobs " + std::to_string(jobs), "expected an integer >= 1");
  // Parsed before MPI starts: a bad study file is the same error on every rank, a clean exit 2.
  const StudySpec spec = parse_study(ConfigDoc::load(file));
  const std::unique_ptr<Transport> net = make_transport();
  if (net->rank() == 0)
    std::fprintf(stderr, "study %s: %zu design points (%zu hardware files x %zu sweep combinations x %zu workloads), "
                 "%s fidelity, %d jobs x %d processes\n", spec.name.c_str(), design_count(spec), spec.hardware.size(),
                 sweep_combinations(spec.sweep), spec.workloads.size(), spec.fidelity.c_str(), jobs, net->size());
  RunOptions opt;
  opt.out_dir = out;
  opt.resume = resume;
  opt.jobs = jobs;
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
