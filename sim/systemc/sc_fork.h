#pragma once
// Runs a function in a forked child and returns its result: how a process that must not elaborate
// SystemC (it may need several simulations, and SystemC allows one elaboration per process) runs
// one. Contract: fn runs in the child, its doubles come back over a pipe; the child exits without
// running atexit handlers or the SystemC kernel's teardown. std::runtime_error (with the child's
// exception message when it threw) if the child fails.
#include <functional>
#include <vector>

namespace kp {

std::vector<double> run_forked(const std::function<std::vector<double>()>& fn);
// `workers` children at once, child w running fn(w); results in worker order.
std::vector<std::vector<double>> run_forked_pool(int workers, const std::function<std::vector<double>(int)>& fn);

}  // namespace kp
