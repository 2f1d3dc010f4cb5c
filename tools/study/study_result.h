#pragma once
// The result data of a design study, shared by the runner, the journal and the report writer.
// Contract: `systems` holds one entry per design point (a hardware file with one set of sweep
// overrides, run on one workload), ordered by `index` (the design point's position in the
// study's enumeration, stable across --resume, --jobs and MPI ranks); every TimePoint carries its
// energy (J, from the per-action counts and the hardware's energy table) and cost (USD, chips x
// time x price per chip-hour). `chosen` is the point the study reports for the design: the best
// by the first objective among the (M, P) points meeting the constraints; `pareto` flags the
// designs of one workload that no other design of that workload beats on every objective.
#include <cstdint>
#include <string>
#include <vector>

#include "models/step_curve/step_band.h"
#include "models/step_curve/step_law.h"
#include "models/time_model/time_model.h"
#include "tools/study/study_spec.h"

namespace kp {

struct WorkloadResult {
  std::string name, file;
  StepLaw law;
  int64_t params = 0;
  StepBand band;  // measured points and bootstrap band when the curve comes from a file; else empty
};

// The chosen point re-simulated with the SystemC update (fidelity `analytic` with verify_top).
struct VerifyResult {
  bool done = false;
  TimePoint systemc;             // same (M, P) as SystemResult::chosen, SystemC T_update
  double t_update_rel_diff = 0;  // (SystemC - analytic) / analytic T_update
};

struct SystemResult {
  size_t index = 0;                // position in the study's design-point enumeration
  std::string name;                // unique label: hardware name, sweep values, workload if several
  std::string hardware_name;       // `name:` of the hardware file
  std::string file;                // base hardware file
  size_t workload = 0;             // index into StudyResult::workloads
  std::vector<Override> overrides; // empty for a study without sweeps
  int64_t max_learners = 0;
  double cost_per_chip_hour_usd = 0;  // rental price, or the build model's amortised chip price
  bool power_modelled = false;        // the hardware file has `power:` (static power counted)
  double tdp_w = 0;                   // 0: no TDP given
  double area_m2 = 0;                 // die area; 0: the hardware file has no `area:`
  double chip_price_usd = 0;          // build cost model: one chip; 0: rental
  std::string fidelity;            // "analytic" or "systemc": the model behind `prediction`
  Prediction prediction;           // every (M, P) point of the grid, scaling rows, knee
  bool feasible = false;           // some point meets the constraints
  TimePoint chosen;                // best feasible point by the first objective (zero if none)
  bool pareto = false;             // on the Pareto front of its workload (feasible designs only)
  int rank = 0;                    // 1 = best chosen point of its workload by the first objective
  VerifyResult verify;
};

struct StudyResult {
  StudySpec spec;
  std::vector<WorkloadResult> workloads;
  std::vector<SystemResult> systems;  // design points, by index
};

}  // namespace kp
