#include "tools/study/case_loader.h"

#include <cstdio>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "core/units.h"
#include "models/time_model/step_source.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/analytic/update_analytic.h"
#include "sim/analytic/layout_timer_analytic.h"
#include "sim/layout_search.h"
#include "sim/systemc/layout_timer_sc.h"
#include "sim/systemc/systemc_update.h"

namespace kp {

HardwareSpec load_hardware(const std::string& hw_file, const std::vector<std::string>& overrides) {
  ConfigDoc doc = ConfigDoc::load(hw_file);
  for (const std::string& o : overrides)
    if (o.rfind("workload.", 0) != 0) doc.apply_override(o);
  return parse_hardware(doc);
}

HardwareSpec load_hardware(const ConfigDoc& base, const std::vector<std::string>& overrides) {
  ConfigDoc doc = base.deep_copy();
  for (const std::string& o : overrides)
    if (o.rfind("workload.", 0) != 0) doc.apply_override(o);
  return parse_hardware(doc);
}

WorkloadCase load_workload_case(const std::string& workload_file, const std::vector<std::string>& overrides) {
  WorkloadCase c;
  ConfigDoc wdoc = ConfigDoc::load(workload_file);
  for (const std::string& o : overrides)
    if (o.rfind("workload.", 0) == 0) wdoc.apply_override(o.substr(9));
  c.workload = parse_workload(wdoc);
  c.network = resolve_network(c.workload.network);
  c.step = lower_training_step(c.network, c.workload.optimizer.kind);
  c.law = resolve_step_law(c.workload, workload_file);
  return c;
}

Case load_case(const std::string& hw_file, const std::string& workload_file,
               const std::vector<std::string>& overrides) {
  Case c;
  c.hw = load_hardware(hw_file, overrides);
  WorkloadCase w = load_workload_case(workload_file, overrides);
  c.workload = std::move(w.workload);
  c.network = std::move(w.network);
  c.step = std::move(w.step);
  c.law = w.law;
  c.precision = resolve_precision(c.workload.precision, c.hw);
  return c;
}

std::unique_ptr<UpdateModel> make_update_model(const Case& c, const std::string& fidelity, const LayoutChoice* layout) {
  if (fidelity != "analytic" && fidelity != "systemc")
    throw ConfigError("--fidelity", "expected analytic or systemc, got \"" + fidelity + "\"");
  if (layout) {
    auto twin = std::make_shared<LayoutUpdate>(c.hw, c.step, c.precision.bytes,
                                               std::make_shared<AnalyticStageTimer>(c.hw, c.precision));
    if (fidelity == "analytic") return std::make_unique<LayoutModel>(twin, *layout);
    // SystemC: the search runs on the twin, the layout found (or the fixed one) in SystemC.
    auto sc = std::make_shared<LayoutUpdate>(c.hw, c.step, c.precision.bytes,
                                             std::make_shared<SystemcStageTimer>(c.hw, c.precision));
    return std::make_unique<LayoutModel>(twin, *layout, sc);
  }
  if (fidelity == "analytic") return std::make_unique<AnalyticUpdate>(c.hw, c.step, c.precision);
  // Runs the SystemC model in a forked worker per simulate(), so this process never elaborates.
  return std::make_unique<SystemcUpdate>(c.hw, c.step, c.precision);
}

std::string memory_problem(const HardwareSpec& hw, const LoweredStep& step, const TensorBytes& bytes) {
  return memory_problem(hw, plain_memory_need(step, bytes));
}

std::string memory_problem(const HardwareSpec& hw, const MemoryNeed& need) {
  if (need.fixed_bytes + need.per_sample_bytes <= hw.dram.capacity_bytes) return "";
  return "the network does not fit device memory with plain data parallelism: one sample needs " +
         need.at(1, hw.dram.capacity_bytes).describe() + " of " + format_quantity(hw.dram.capacity_bytes, Dim::Bytes) +
         " (a layout with ZeRO, tp, pp or recompute may fit: --layout search)";
}

std::vector<int64_t> learners_allowed(const HardwareSpec& hw, const std::vector<int64_t>& grid) {
  std::vector<int64_t> out;
  for (int64_t p : grid) {
    if (learners_problem(hw.interconnect, p).empty()) out.push_back(p);
  }
  return out;
}

}  // namespace kp
