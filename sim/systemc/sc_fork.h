#pragma once
// Runs a function in forked children and returns their results: how a process that must not
// elaborate SystemC (it may need several simulations, and SystemC allows one elaboration per
// process) runs them. The one fork/pipe/wait runner of the project: the chip pool, the systolic
// pool and the interconnect runner all go through it.
// Contract: fn runs in the child, its bytes (or doubles) come back over a pipe; the child exits
// without running atexit handlers or the SystemC kernel's teardown. std::runtime_error if a child
// fails: "SystemC worker: <the child's exception message>" when it threw, otherwise how it ended
// (exit status or signal). Call only from a single-threaded moment of the process.
#include <functional>
#include <string>
#include <vector>

namespace kp {

// `workers` children at once, child w running fn(w); each child's bytes in worker order.
std::vector<std::string> run_forked_pool_bytes(int workers, const std::function<std::string(int)>& fn);

std::vector<double> run_forked(const std::function<std::vector<double>()>& fn);
// `workers` children at once, child w running fn(w); results in worker order.
std::vector<std::vector<double>> run_forked_pool(int workers, const std::function<std::vector<double>(int)>& fn);

}  // namespace kp
