#pragma once
// A design study: base hardware files x sweeps over dotted keys x workloads x the M and P grids,
// with objectives, constraints and a fidelity. Contract: parse_study() resolves every path against
// the study file's folder, validates the grids (a list of integers >= 1, or {from, to} meaning
// powers of two) and every sweep value (each one applied to every base file exactly like
// `--set key=value` and parsed), and reports errors at the study file's line and column.
#include <cstdint>
#include <string>
#include <vector>

#include "core/layout_spec.h"

#include "core/config_doc.h"

namespace kp {

// One sweep assignment of a design point, e.g. {"interconnect.link.bandwidth", "50 GB/s"}.
struct Override {
  std::string key;    // dotted key in the hardware file, or `workload.`-prefixed for the workload
  std::string value;  // the value as YAML text, units included
  std::string assignment() const { return key + "=" + value; }
};

// One swept key and its values (YAML text; a range is expanded to its values at parse time).
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// Axes of a group are zipped (equal lengths, i-th with i-th) or crossed (every combination);
// the groups of a study are crossed with each other.
struct SweepGroup {
  bool zip = false;
  std::vector<SweepAxis> axes;
};

enum class Objective { Time, Energy, Cost };
const char* objective_name(Objective o);  // "time", "energy", "cost"

struct StudySpec {
  std::string name;
  std::string source_file;
  std::vector<std::string> workloads;  // paths (`workload:` or `workloads:`)
  std::vector<std::string> hardware;   // paths of the base hardware files
  std::vector<SweepGroup> sweep;       // empty: one design point per (hardware, workload)
  std::vector<int64_t> batches;
  std::vector<int64_t> learners;       // capped by each system's max_learners and max_chips
  double knee_threshold = 0.1;
  int64_t weak_per_learner_batch = 32;
  std::vector<Objective> objectives{Objective::Time};  // the first one chooses and ranks
  int64_t max_chips = 0;               // 0: no limit
  double max_cost_usd = 0;             // 0: no limit; a point costing more is infeasible
  std::string fidelity = "analytic";   // "analytic" or "systemc" (every point)
  int64_t verify_top = 0;              // analytic only: re-simulate the k best designs in SystemC
  // `layout:` (sim/layout_search.h): a fixed parallel layout or `search`; absent = plain data
  // parallelism, where a design whose network does not fit one chip is infeasible.
  bool has_layout = false;
  LayoutChoice layout;
};

StudySpec parse_study(const ConfigDoc& doc);

}  // namespace kp
