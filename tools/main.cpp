// kneepoint: how long training takes on hardware that does not exist yet, and where more chips
// stop paying off. Exit codes: 0 ok, 2 user error (bad input, with file:line:col); internal bugs
// abort with a message. `--help` is also the man page's source (help2man, cmake/kneepoint_man.cmake):
// its "Usage:", "Verbs:", "Options:" and "Exit status:" blocks become the page's sections.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/kinds.h"
#include "tools/cli_common.h"
#include "tools/verbs.h"

namespace {

struct VerbSummary {
  const char* name;
  const char* summary;
};

// One line per verb for --help and the man page; a verb left out of the build is not listed.
constexpr VerbSummary kSummaries[] = {
    {"simulate", "one update T_update(M, P) of a workload on a hardware file, with its breakdown"},
    {"predict", "training time T(M, P) = N(M) x T_update(M, P) over grids, best M per P, the knee"},
    {"study", "a design-space study from YAML: journal, report.html, report.md, points.csv"},
    {"scalesim", "a SCALE-Sim v2 config and topology through the fold timing: COMPUTE_REPORT.csv"},
    {"train", "one training trial of a workload with the reference trainer, to its target error"},
    {"fit", "fit N(M) = N_inf + alpha/M to a step-curve CSV or to Pollux validation traces"},
    {"validate", "predicted against measured step and all-reduce times (validate pollux DIR | published FILE.csv)"},
    {"calibrate", "fit compute efficiency, step overhead and kernel launch to one device's measured step times"},
    {"curve", "measure a workload's step curve (Shallue et al. 2018's protocol)"},
    {"report", "regenerate a finished study's report files from its journal"},
    {"import", "a workload YAML from an ONNX model graph (import onnx MODEL.onnx --out F)"},
};

const char* summary_of(const char* verb) {
  for (const VerbSummary& s : kSummaries)
    if (std::strcmp(s.name, verb) == 0) return s.summary;
  return "";
}

void usage(std::ostream& out) {
  out << "Usage: kneepoint VERB [OPTIONS]\n"
         "   or: kneepoint --help | --version | --list-kinds\n"
         "Predicts how long training a network takes on hardware that does not exist yet, and\n"
         "where adding chips stops paying off. Hardware, workloads and studies are YAML files.\n\n"
         "Verbs:\n";
  for (const kp::Verb& v : kp::verbs()) {
    std::string name = v.name;
    name.resize(10, ' ');
    out << "  " << name << summary_of(v.name) << "\n";
  }
  out << "\nOptions:\n"
         "  -h, --help    print this help and exit (kneepoint VERB --help: the verb's options)\n"
         "  --version     print the version and exit\n"
         "  --list-kinds  print the component and layer kinds the YAML files may name\n\n"
         "Exit status:\n"
         "  0 success; 2 bad input (one message naming file:line:col, the key and what was\n"
         "  expected); an internal bug aborts with a message.\n";
}

// `kneepoint --complete [VERB]`, for tools/completion/kneepoint.bash: the verbs one a line, or
// a verb's options (format: kCompleteOptionsArg in tools/cli_common.h). Not in --help.
int complete(int argc, char** argv) {
  if (argc == 2) {
    for (const kp::Verb& v : kp::verbs()) std::cout << v.name << "\n";
    return 0;
  }
  for (const kp::Verb& v : kp::verbs())
    if (argv[2] == std::string(v.name)) return v.run({kp::kCompleteOptionsArg});
  return 2;  // an unknown verb completes to nothing
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  const std::string verb = argv[1];
  if (verb == "--help" || verb == "-h") {
    usage(std::cout);
    return 0;
  }
  if (verb == "--version") {
    std::cout << "kneepoint 0.1.0\n";
    return 0;
  }
  if (verb == "--list-kinds") {
    for (const kp::KindInfo& k : kp::all_kinds())
      std::cout << k.area << "\t" << k.kind << "\t" << k.description << "\n";
    return 0;
  }
  if (verb == "--complete") return complete(argc, argv);
  const kp::Args args(argv + 2, argv + argc);
  for (const kp::Verb& v : kp::verbs()) {
    if (verb != v.name) continue;
    try {
      return v.run(args);
    } catch (const kp::ConfigError& e) {
      std::vector<kp::Diagnostic> located;
      for (const kp::Diagnostic& d : e.diagnostics()) located.push_back(kp::locate_key(d));
      std::cerr << kp::ConfigError(located).what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "kneepoint: internal error: " << e.what() << "\n";
      std::abort();
    }
  }
  std::cerr << "kneepoint: unknown verb \"" << verb << "\"\n";
  usage(std::cerr);
  return 2;
}
