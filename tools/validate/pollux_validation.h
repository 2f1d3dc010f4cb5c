#pragma once
// Validation of T_update(M, P) against the Pollux (OSDI'21) measured traces of ResNet-18/CIFAR-10
// on AWS g4dn.12xlarge (4 x T4 per node). Contract: read_placements() / read_scalability() parse the
// trace CSVs into rows (any malformed file is one ConfigError naming file:line); predict_pollux_row() returns
// the model's step_time and sync_time for one row; median_ape() is the median of |pred - meas| / meas.
#include <cstdint>
#include <string>
#include <vector>

#include "tools/study/case_loader.h"

namespace kp {

struct PlacementRow {
  std::string origin;            // file the row came from
  int line = 0;                  // 1-based line in that file
  std::vector<int> gpus_per_node;  // one entry per node
  int64_t local_bsz = 0;         // per-GPU batch
  double step_time_s = 0;        // measured seconds per optimizer step
  // Measured seconds from the end of backward to the end of DDP's all-reduce (AdaptDL's CUDA
  // events in adaptdl/torch/parallel.py): the exposed all-reduce, waits for slower replicas included.
  double sync_time_s = 0;
  int64_t learners() const;
  std::string placement() const;  // digits, as in placements.csv
};

// placements.csv: placement,local_bsz,step_time,sync_time.
std::vector<PlacementRow> read_placements(const std::string& path);
// scalability.csv: num_nodes,num_replicas,local_bsz,step_time,sync_time; replicas are spread as
// evenly as possible over the nodes (the file does not say how they were placed).
std::vector<PlacementRow> read_scalability(const std::string& path);
// "4431" -> {4, 4, 3, 1}; each digit 1..9, else a ConfigError at origin:line.
std::vector<int> parse_placement(const std::string& text, const std::string& origin, int line);

struct PolluxStepPrediction {
  double step_time_s = 0;  // T_update at M = local_bsz * P on P learners
  double sync_time_s = 0;  // allreduce_exposed_s: the all-reduce time not hidden behind backward
  double allreduce_s = 0;  // total all-reduce time, for reference
};

PolluxStepPrediction predict_pollux_row(const Case& c, const PlacementRow& row);

// predict_pollux_row() for every row at `fidelity` ("analytic" or "systemc"); rows that model the
// same system (GPUs per node, nodes, local batch) share one simulation. systemc: the chip runs once
// per local batch on the SystemC chip, each bucket's all-reduce on the SystemC interconnect.
std::vector<PolluxStepPrediction> predict_pollux_rows(const Case& c, const std::vector<PlacementRow>& rows,
                                                      const std::string& fidelity);

// Median absolute percentage error in percent; rows with a measured value <= 0 are skipped.
double median_ape(const std::vector<double>& predicted, const std::vector<double>& measured);

}  // namespace kp
