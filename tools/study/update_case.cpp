#include "tools/study/update_case.h"

#include "core/config_doc.h"

namespace kp {

Case load_update_case(const std::string& hw_file, const std::string& workload_file,
                      const std::vector<std::string>& overrides) {
  Case c;
  c.hw = load_hardware(hw_file, overrides);
  ConfigDoc wdoc = ConfigDoc::load(workload_file);
  for (const std::string& o : overrides)
    if (o.rfind("workload.", 0) == 0) wdoc.apply_override(o.substr(9));
  c.workload = parse_workload(wdoc);
  c.network = resolve_network(c.workload.network);
  c.step = lower_training_step(c.network, c.workload.optimizer.kind);
  c.precision = resolve_precision(c.workload.precision, c.hw);
  return c;  // c.law: not resolved (see the header)
}

}  // namespace kp
