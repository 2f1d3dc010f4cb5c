// The one fork runner (sim/systemc/sc_fork.h): results come back in worker order, and a child's
// failure reaches the caller with the child's own message, also through the interconnect runner
// (which used to report only "the SystemC interconnect worker failed").
#include "sim/systemc/sc_fork.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "sim/systemc/net/net_runner.h"

namespace kp {
namespace {

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ScFork, ResultsComeBackInWorkerOrder) {
  const auto out = run_forked_pool(3, [](int w) { return std::vector<double>{w * 1.5, -1.0 * w}; });
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (std::vector<double>{0.0, -0.0}));
  EXPECT_EQ(out[2], (std::vector<double>{3.0, -2.0}));
  // Bytes, including NULs, arrive unchanged (the interconnect runner sends raw structs).
  const std::string raw("a\0b\xff", 4);
  EXPECT_EQ(run_forked_pool_bytes(1, [&](int) { return raw; }).at(0), raw);
}

TEST(ScFork, ChildExceptionMessageReachesTheCaller) {
  const std::string e = error_of([] {
    run_forked_pool(2, [](int w) -> std::vector<double> {
      if (w == 1) throw std::invalid_argument("layer conv3 has 0 channels");
      return {1.0};
    });
  });
  EXPECT_EQ(e, "SystemC worker: layer conv3 has 0 channels");
}

TEST(ScFork, ChildKilledBySignalIsNamed) {
  const std::string e = error_of([] {
    run_forked([]() -> std::vector<double> {
      ::kill(::getpid(), SIGKILL);
      return {};
    });
  });
  EXPECT_EQ(e, "SystemC worker 0 failed: killed by signal 9");
}

// The interconnect runner's child refuses to run in a process that has already elaborated; that
// message (not a generic "worker failed") must reach the caller.
TEST(ScFork, NetRunnerPassesTheWorkersMessageOn) {
  InterconnectSpec ic;
  ic.link = {1e9, 2e-6};
  ic.max_learners = 2;
  const NetJob job{ic, 2, 1e6, true};
  run_net_sc({job});  // elaborates here, so the forked child inherits an elaborated kernel
  const std::string e = error_of([&] { run_net_sc_forked({job}); });
  EXPECT_EQ(e, "SystemC worker: run_net_sc: this process has already run a SystemC simulation");
}

}  // namespace
}  // namespace kp
