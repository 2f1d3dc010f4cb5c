#pragma once
// A four-block decoder (hand-sized) and a small chip for the layout tests.
#include "core/config_doc.h"
#include "core/hw_spec.h"
#include "core/lowering.h"
#include "core/workload_spec.h"

namespace kp::layout_fixture {

constexpr int64_t kLayers = 4, kD = 64, kSeq = 32;

inline LoweredStep tiny_decoder() {
  const ConfigDoc doc = ConfigDoc::parse(
      "name: t\n"
      "transformer: {layers: 4, d_model: 64, heads: 4, d_ff: 256, activation: gelu, norm: pre, causal: true,\n"
      "              vocab: 512, sequence: 32, tied_embeddings: true, bias: false}\n"
      "dataset: {kind: none, train_size: 1000}\n"
      "optimizer: {kind: adamw, learning_rate: 0.001}\n"
      "target: {validation_loss: 2.0}\n"
      "step_curve: {source: law, n_inf: 100, alpha: 1000}\n",
      "tiny.yaml");
  const WorkloadSpec w = parse_workload(doc);
  return lower_training_step(resolve_network(w.network), w.optimizer.kind);
}

inline HardwareSpec chip() {
  HardwareSpec hw;
  hw.name = "t";
  hw.clock_hz = 1e9;
  hw.array.rows = 32, hw.array.cols = 32, hw.array.count = 4;
  hw.vector = {64, 1};
  hw.sram = {8e6, 1e12, 8};
  hw.dram = {"hbm2", 16e9, 1e11, 1e-7, 4};
  hw.interconnect.topology = Topology::Hierarchical;
  hw.interconnect.collective = Collective::Hierarchical;
  hw.interconnect.devices_per_node = 8;
  hw.interconnect.max_learners = 64;
  hw.interconnect.link = {1e11, 1e-6};
  hw.interconnect.inter_node = {1e10, 5e-6};
  return hw;
}

}  // namespace kp::layout_fixture
