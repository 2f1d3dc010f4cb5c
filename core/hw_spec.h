#pragma once
// The hardware description, resolved to SI units (bytes, bytes/s, Hz, s, J, USD). Field names match
// the YAML keys of hw_configs/*.yaml. Contract: a HardwareSpec returned by parse_hardware() is
// fully validated (every size > 0, every enum known), so models built from it need no checks.
#include <cstdint>
#include <string>

#include "core/calibration_spec.h"
#include "core/config_doc.h"
#include "core/data_type.h"
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
  // `peak:` dense rate of all `count` arrays per data type (absent = unsupported). The geometry
  // sets tiles and folds; a type runs the folds at peak / (2 * rows * cols * count * clock) of
  // the geometry's rate (core/precision.h matmul_speed).
  TypePeaks peaks;
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

// `interconnect.overlap:` what a running collective takes from its own chip while it overlaps
// compute (sim/step_profile.h finish_update). A GPU runs NCCL's reductions as kernels, one CTA per
// channel, each resident on one SM (NCCL docs, "Environment variables": NCCL_MIN_NCHANNELS /
// NCCL_MAX_NCHANNELS, "each channel uses one CUDA block"); its copies and reductions go through
// device memory. Absent = 0 and 0: the collective costs the compute nothing (today's model).
struct OverlapSpec {
  int64_t units = 0;               // compute units (array.count's units, SMs on a GPU) it holds
  double dram_bytes_per_byte = 0;  // device-memory bytes it moves per byte the chip sends on links
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
  OverlapSpec overlap;
  // The achieved bandwidth of one device link (link x efficiency); the analytic collectives and
  // the SystemC network both start from it.
  double link_achieved_bytes_per_s() const { return link.bandwidth_bytes_per_s * efficiency; }
};

struct EnergySpec {
  double mac_j = 0, sram_byte_j = 0, dram_byte_j = 0, link_byte_j = 0, vector_op_j = 0;
};

// `power:` (optional; absent = static power not modelled, and outputs say so). Static power is
// drawn over the whole step time, busy or waiting; per chip, per link, and per host (node).
struct PowerSpec {
  bool modelled = false;
  double tdp_w = 0;            // board power limit per chip; 0 = not given (no TDP check)
  double chip_static_w = 0;    // per chip: leakage + clocks while a job runs (idle draw)
  // Per chip, on top of static, while it computes (forward, backward, optimizer), whatever the
  // array's utilization: clocks, issue and operand delivery of the allocated units.
  double chip_busy_w = 0;
  double link_static_w = 0;    // per chip link (x links_per_chip): SerDes kept trained
  double host_static_w = 0;    // per node of devices_per_node chips: CPUs, DRAM, NICs, fans
};

// `area:` (optional): per-unit silicon area at the chip's process node, so that a design's die
// area follows from its array, SRAM, DRAM PHYs and links. Absent = area not modelled.
struct AreaSpec {
  bool modelled = false;
  std::string process;          // e.g. "TSMC N4": informational, the figures carry the node
  double mac_m2 = 0;            // one MAC of the array's element width
  double vector_lane_m2 = 0;    // one vector lane
  double sram_m2_per_mib = 0;   // SRAM macro area per MiB, periphery included
  double dram_phy_m2 = 0;       // per DRAM channel (memory.dram.channels)
  double link_phy_m2 = 0;       // per chip link (interconnect.links_per_chip)
  double other_m2 = 0;          // fixed: control, NoC, I/O ring, everything not scaled
  double max_die_m2 = 858e-6;   // lithography reticle field (26 mm x 33 mm): a larger die cannot be made
};

enum class CostModel { Rental, Build };
enum class YieldModel { Murphy, NegativeBinomial };

// `cost:`: model rental (per_chip_hour) or build (cost.build: die cost from area by a yield model
// and a wafer price, plus DRAM and packaging, amortised over a lifetime); electricity on top.
struct CostSpec {
  CostModel model = CostModel::Rental;
  double per_chip_hour_usd = 0;     // rental
  double wafer_usd = 0;             // build: one processed wafer
  double wafer_diameter_m = 0.3;
  double defects_per_m2 = 0;        // D0
  YieldModel yield_model = YieldModel::NegativeBinomial;
  double clustering = 3.0;          // negative-binomial alpha
  double dram_usd_per_byte = 0;
  double packaging_usd = 0;         // interposer, substrate, assembly, test per chip
  double lifetime_s = 0;            // amortisation period of the chip's price
  double electricity_usd_per_j = 0; // 0 = energy not charged
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
  PowerSpec power;
  AreaSpec area;
  CostSpec cost;
  double cost_per_chip_hour_usd = 0;  // rental: cost.per_chip_hour; build: amortised chip price
  double compute_efficiency = 1.0;  // one global factor per unit type, reason stated in the YAML
  RuntimeSpec runtime;              // fixed costs (`runtime:`); all zero when the section is absent
  CalibrationSpec calibration;      // `calibration:`: which constants were fitted to measurements
};

// Throws ConfigError listing every problem of the document.
HardwareSpec parse_hardware(const ConfigDoc& doc);

class ConfigMap;
// The optional `power:`, `area:` and `cost:` sections (core/hw_power_area.cpp); record errors in
// the map. parse_cost runs after area: a build cost model needs `area:`.
void parse_power(ConfigMap& root, HardwareSpec& hw);
void parse_area(ConfigMap& root, HardwareSpec& hw);
void parse_cost(ConfigMap& root, HardwareSpec& hw);

}  // namespace kp
