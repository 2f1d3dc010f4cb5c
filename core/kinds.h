#pragma once
// Every `kind:` the YAML accepts, one table per enum: the parser's accepted names (and the list in
// its error), the enum's name function and `kneepoint --list-kinds` all read these tables, so a
// kind added to a table is parsed and listed, and one never listed is never accepted.
// Contract: entry i of an enum's table is the enum's value i (tests/core/kinds_test.cpp checks the
// round trip); parse_kind records "expected one of <the table's names>, got \"x\"" at the key and
// returns 0 on a bad value, as ConfigMap::choice does.
#include <string>
#include <vector>

namespace kp {

class ConfigMap;

struct KindEntry {
  const char* name;
  const char* description;
};
using KindTable = std::vector<KindEntry>;

const KindTable& dataflow_kinds();    // Dataflow (hw_spec.h)
const KindTable& dram_kinds();        // DramSpec::kind
const KindTable& topology_kinds();    // Topology
const KindTable& collective_kinds();  // Collective
const KindTable& array_kinds();       // chip.compute.array.kind
const KindTable& vector_kinds();      // chip.compute.vector.kind
const KindTable& step_curve_kinds();  // StepCurveSource (workload_spec.h)
const KindTable& dataset_kinds();     // DatasetSpec::kind

// The index of m[key] in `table` (required key).
int parse_kind(ConfigMap& m, const std::string& key, const KindTable& table);
// The table's name of value `index`; an index off the table is an internal bug (std::logic_error).
const char* kind_name(const KindTable& table, int index, const char* what);

struct KindInfo {
  std::string area, kind, description;
};

// Every table's kinds by area, plus the network layer kinds of the layer registry.
std::vector<KindInfo> all_kinds();

}  // namespace kp
