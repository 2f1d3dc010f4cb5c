// Built without MPI: every run is one process.
#include "tools/study/transport.h"

namespace kp {

std::unique_ptr<Transport> make_transport() { return std::make_unique<Transport>(); }

}  // namespace kp
