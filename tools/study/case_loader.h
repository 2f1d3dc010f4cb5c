#pragma once
// Loads one (hardware, workload) case from YAML into Specs and builds the models from them.
// Contract: every user error is a ConfigError (file:line:col); --set overrides apply to the
// hardware file (keys under chip., interconnect., energy., cost.) or, prefixed `workload.`, to
// the workload file.
#include <memory>
#include <string>
#include <vector>

#include "core/config_doc.h"
#include "core/hw_spec.h"
#include "core/lowering.h"
#include "core/workload_spec.h"
#include "models/step_curve/step_law.h"
#include "sim/memory_footprint.h"
#include "sim/update_model.h"

namespace kp {

struct Case {
  HardwareSpec hw;
  WorkloadSpec workload;
  ResolvedNetwork network;
  LoweredStep step;
  StepLaw law;
  Precision precision;  // the workload's precision on this hardware (resolve_precision)
  std::string precision_problem;  // a study's point: why the chip cannot run it (precision_problem)
};

// The workload half of a Case: loaded once per workload file and shared by every design point.
struct WorkloadCase {
  WorkloadSpec workload;
  ResolvedNetwork network;
  LoweredStep step;
  StepLaw law;
};

Case load_case(const std::string& hw_file, const std::string& workload_file,
               const std::vector<std::string>& overrides = {});
// Applies only the `workload.`-prefixed overrides (without the prefix) to the workload file.
WorkloadCase load_workload_case(const std::string& workload_file, const std::vector<std::string>& overrides = {});
HardwareSpec load_hardware(const std::string& hw_file, const std::vector<std::string>& overrides = {});
// The same from a hardware file loaded once (ConfigDoc::load, then deep_copy): the overrides go to
// a deep copy of `base`, which is left as it was; the errors are the same as from the file.
HardwareSpec load_hardware(const ConfigDoc& base, const std::vector<std::string>& overrides);

// "analytic" or "systemc"; anything else is a ConfigError. With `layout` (--layout, a study's
// layout:), a LayoutModel (sim/layout_search.h) of that fidelity.
std::unique_ptr<UpdateModel> make_update_model(const Case& c, const std::string& fidelity,
                                               const LayoutChoice* layout = nullptr);

// Why the network cannot train on one chip with plain data parallelism (its weights, gradients,
// optimizer state and one sample's activations, at the widths of `bytes`, exceed
// chip.memory.dram.capacity: the footprint of sim/memory_footprint.h), with the figures; empty
// when it fits.
std::string memory_problem(const HardwareSpec& hw, const LoweredStep& step, const TensorBytes& bytes);
// The same from the step's plain_memory_need (computed once per workload by a study).
std::string memory_problem(const HardwareSpec& hw, const MemoryNeed& need);

// Learner counts of `grid` that the system offers (learners_problem() is empty: P <= max_learners,
// hierarchical whole nodes or one partial node, a torus slice that fits, ...); others are skipped.
std::vector<int64_t> learners_allowed(const HardwareSpec& hw, const std::vector<int64_t>& grid);

}  // namespace kp
