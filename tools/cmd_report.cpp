// kneepoint report DIR: regenerates every report file of a finished study from DIR/study.journal,
// without evaluating anything.
#include <cstdio>

#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/study/study_runner.h"

namespace kp {

int run_report(const Args& args) {
  po::options_description desc("report options");
  std::string dir;
  desc.add_options()("dir", po::value(&dir)->required(), "output folder of a study run");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  if (!parse_options("report", "kneepoint report DIR", args, desc, vm, &pos)) return 0;
  write_study_outputs(load_study_result(dir), dir);
  return 0;
}

}  // namespace kp
