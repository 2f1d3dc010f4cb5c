// kneepoint study: a design study from YAML to report.md, points.csv and summary.json.
#include <cstdio>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "tools/cli_common.h"
#include "tools/report/report_writer.h"
#include "tools/study/study_runner.h"

namespace kp {

int run_study(const Args& args) {
  po::options_description desc("study options");
  std::string file, out;
  desc.add_options()("study", po::value(&file)->required(), "study YAML")(
      "out", po::value(&out)->default_value("kneepoint-out"), "output folder");
  po::positional_options_description pos;
  pos.add("study", 1);
  po::variables_map vm;
  if (!parse_options("study", "kneepoint study STUDY.yaml [--out DIR]", args, desc, vm, &pos)) return 0;
  const StudySpec spec = parse_study(ConfigDoc::load(file));
  std::fprintf(stderr, "study %s: %zu systems\n", spec.name.c_str(), spec.hardware.size());
  const StudyResult r = run_study(spec, stderr);
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
  return 0;
}

}  // namespace kp
