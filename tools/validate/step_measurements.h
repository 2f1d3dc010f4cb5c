#pragma once
// Measured step times of one device over a batch sweep, the input of `kneepoint calibrate`.
// Contract: read_step_measurements() accepts three CSV layouts, told apart by the header:
//   batch,step_time_s                       kneepoint's own: one row per measured batch size, the
//                                           step time in seconds ('#' comment lines allowed);
//   placement,local_bsz,step_time,sync_time the Pollux placements.csv: its one-GPU rows (placement 1);
//   num_nodes,num_replicas,local_bsz,...    the Pollux scalability.csv: its one-replica rows.
// Every malformed value is one located diagnostic (file:line:col), all thrown as one ConfigError;
// so are a file without a device row and a sweep of fewer than two distinct batch sizes (a fit of
// a per-sample slope and a fixed cost needs two).
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

struct StepMeasurement {
  int line = 0;        // 1-based line in the file
  int64_t batch = 0;   // samples per step on the one device
  double step_time_s = 0;
};

struct StepMeasurements {
  std::string path;
  std::string layout;  // "batch,step_time_s", "pollux placements (placement 1)", "pollux scalability (1 replica)"
  std::string bytes;   // the file as read, for its hash in the calibrated file
  std::vector<StepMeasurement> rows;
};

StepMeasurements read_step_measurements(const std::string& path);

}  // namespace kp
