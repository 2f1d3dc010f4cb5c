#pragma once
// The `sweep:` section of a study file. Contract: parse_sweep() accepts
//   sweep:                                   # a map: its keys are crossed
//     chip.compute.array.rows: [32, 64, 128]
//     interconnect.link.bandwidth: {from: 25 GB/s, to: 400 GB/s, factor: 2}
// or a list of groups `- zip: {...}` / `- cross: {...}` (a plain map is a cross group), the groups
// crossed with each other. A range is {from, to, factor > 1} (geometric) or {from, to, step > 0}
// (arithmetic), `to` inclusive, `from` and `to` in units of one dimension; its values are written
// in the unit of `from`. Every value becomes a SweepCheck; run_sweep_checks() applies each, like
// `--set key=value`, to each base file it concerns (hardware files, or the workload files for
// `workload.` keys) and parses that file; a failure is reported at the key (unknown key) or at the
// value (anything else), and the axis's later values are skipped. The checks are apart so that a
// study too large to run is refused before its values are (66,048 of them took 34 s).
// Diagnostics go to `root`'s sink (ConfigMap contract: the caller's finish() throws them).
#include <string>
#include <vector>

#include "core/config_map.h"
#include "tools/study/study_spec.h"

namespace kp {

struct SweepCheck {
  YAML::Node key_node, value_node;  // where a problem is reported
  std::string key, value;
  size_t axis = 0;                  // which axis of the sweep (from 1)
};

std::vector<SweepGroup> parse_sweep(ConfigMap& root, std::vector<SweepCheck>& checks);
void run_sweep_checks(ConfigMap& root, const std::vector<SweepCheck>& checks,
                      const std::vector<std::string>& hardware_files, const std::vector<std::string>& workload_files);

// The values of a range: `from`..`to` (inclusive, with 1e-9 relative slack) by factor or step.
// Numbers are formatted with 10 significant digits ("%.10g"), followed by " unit" if unit is set.
std::vector<std::string> expand_range(double from, double to, double factor, double step,
                                      const std::string& unit);

}  // namespace kp
