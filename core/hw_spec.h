#pragma once
// The hardware description, resolved to SI units (bytes, bytes/s, Hz, s, J, USD). Field names match
// the YAML keys of hw_configs/*.yaml. Contract: a HardwareSpec returned by parse_hardware() is
// fully validated (every size > 0, every enum known), so models built from it need no checks.
#include <cstdint>
#include <string>

#include "core/config_doc.h"
#include "core/runtime_spec.h"

namespace kp {

enum class Dataflow { OutputStationary, WeightStationary, InputStationary };
enum class Topology { Ring, Torus2d, Switch, Hierarchical };
enum class Collective { Ring, DoubleBinaryTree, HalvingDoubling, Torus2d, Hierarchical };

const char* dataflow_name(Dataflow d);  // "os", "ws", "is"
const char* topology_name(Topology t);
const char* collective_name(Collective c);

struct SystolicArraySpec {
  int64_t rows = 0, cols = 0, count = 1;
  Dataflow dataflow = Dataflow::WeightStationary;
  int64_t bytes_per_element = 2;
};

struct VectorUnitSpec {
  int64_t lanes = 0, count = 1;
};

struct SramSpec {
  double capacity_bytes = 0, bandwidth_bytes_per_s = 0;
  int64_t banks = 1;
};

struct DramSpec {
  std::string kind;  // lpddr4, hbm2, gddr6, ddr4: informational, energy comes from `energy:`
  double capacity_bytes = 0, bandwidth_bytes_per_s = 0, latency_s = 0;
  int64_t channels = 1;
};

struct LinkSpec {
  double bandwidth_bytes_per_s = 0;  // per direction
  double latency_s = 0;
  double flow_bandwidth_bytes_per_s = 0;  // inter_node only: cap of one TCP flow (0 = none)
  double efficiency = 1.0;  // inter_node only: achieved / nominal (default interconnect.efficiency)
};

struct InterconnectSpec {
  Topology topology = Topology::Ring;
  Collective collective = Collective::Ring;
  LinkSpec link;             // the only level, or the intra-node fabric of a hierarchical system
  LinkSpec inter_node;       // hierarchical only: node-to-node network (per node)
  int64_t devices_per_node = 1;
  int64_t max_learners = 1;  // largest P the system offers
  int64_t links_per_chip = 1;  // parallel links a chip drives in one collective direction
  double efficiency = 1.0;   // achieved / nominal bandwidth, one global factor (say why in YAML)
  double bucket_bytes = 25.0 * 1048576;  // gradient bucket (PyTorch DDP default 25 MiB)
  double first_bucket_bytes = 1048576;   // the first-defined parameters' bucket (PyTorch DDP 1 MiB)
  int64_t chunks = 1;        // pieces each collective step is split into; they pipeline over links
  // The achieved bandwidth of one device link (link x efficiency); the analytic collectives and
  // the SystemC network both start from it.
  double link_achieved_bytes_per_s() const { return link.bandwidth_bytes_per_s * efficiency; }
};

struct EnergySpec {
  double mac_j = 0, sram_byte_j = 0, dram_byte_j = 0, link_byte_j = 0, vector_op_j = 0;
  double static_w = 0;  // per chip, while the step runs
};

struct HardwareSpec {
  std::string name;
  std::string source_file;
  double clock_hz = 0;
  SystolicArraySpec array;
  VectorUnitSpec vector;
  SramSpec sram;
  DramSpec dram;
  InterconnectSpec interconnect;
  EnergySpec energy;
  double cost_per_chip_hour_usd = 0;
  double compute_efficiency = 1.0;  // one global factor per unit type, reason stated in the YAML
  RuntimeSpec runtime;              // fixed costs (`runtime:`); all zero when the section is absent
};

// Throws ConfigError listing every problem of the document.
HardwareSpec parse_hardware(const ConfigDoc& doc);

}  // namespace kp
