#include "tools/curve_mpi.h"

#include <cstdio>
#include <iostream>
#include <memory>

#include "tools/study/curve_ranks.h"

namespace kp {

std::optional<CurveMeasurement> measure_curve_cli(const ResolvedNetwork& net, const Dataset& data,
                                                  const CurveSearchSpec& s, const CurveRunInfo& info,
                                                  const std::string& out, bool resume, int& exit_code) {
  exit_code = 0;
  const std::unique_ptr<Transport> mpi = make_transport();
  // One process resuming a killed MPI run goes the ranks' way, which merges their journals.
  if (mpi->size() < 2 && !(resume && !rank_files(out).empty()))
    return measure_and_write_curve(net, data, s, info, out, resume, std::cerr);
  CurveMeasurement m;
  try {
    m = measure_curve_on_ranks(*mpi, net, data, s, info, out, resume, false, std::cerr);
  } catch (const CurveRanksRefused& e) {
    // Every rank knows: a clean stop. Rank 0 says why before finish()'s barrier: mpiexec aborts
    // the job when the first rank exits non-zero, and a rank 0 that printed only after MPI ended
    // was at times killed first (CurveMpi's refused-journal check lost the message under load).
    if (mpi->rank() == 0) {
      std::fprintf(stderr, "%s\n", e.what());
      std::fflush(stderr);
    }
    mpi->finish();
    exit_code = 2;
    return std::nullopt;
  } catch (const ConfigError& e) {
    // Unwinding destroys the transport, whose MPI_Abort stops the other ranks: say why first.
    std::fprintf(stderr, "%s\n", e.what());
    std::fflush(stderr);
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kneepoint: internal error (rank %d): %s\n", mpi->rank(), e.what());
    std::fflush(stderr);
    throw;
  }
  mpi->finish();
  if (mpi->rank() != 0) return std::nullopt;
  return m;
}

}  // namespace kp
