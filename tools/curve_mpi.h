#pragma once
// `kneepoint curve` under `mpirun -np N` (N > 1): the ranks share the batch-size chains of the
// measurement (tools/study/curve_ranks.h); rank 0 writes the curve and prints the result. In one
// process, the plain measurement (after merging the rank journals of a killed MPI run, on --resume).
#include <optional>
#include <string>

#include "models/step_curve/measure/curve_cache.h"

namespace kp {

// The measurement on rank 0 (or in one process), written to `out`; std::nullopt on the other
// ranks, which then exit 0 without printing. Every rank returns only after MPI has ended. A
// refused run (a journal exists without --resume, or is of other settings) is printed by rank 0
// before MPI ends, and every rank returns std::nullopt with `exit_code` 2; an error during the
// trials is printed by its rank and stops every rank (MPI_Abort, exit 2).
std::optional<CurveMeasurement> measure_curve_cli(const ResolvedNetwork& net, const Dataset& data,
                                                  const CurveSearchSpec& s, const CurveRunInfo& info,
                                                  const std::string& out, bool resume, int& exit_code);

}  // namespace kp
