// The measured step-curve cache (models/step_curve/measure/curve_cache.h) on a tiny synthetic
// workload: a missing cache is measured and written with its fingerprint, a matching cache is
// read without training, other settings re-measure (and restart a journal of other settings),
// and a bad `step_curve.protocol` names file:line:col.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "models/step_curve/curve_csv.h"
#include "models/step_curve/measure/curve_cache.h"

namespace kp {
namespace {

const std::string kWorkload = R"(name: tiny-curve
input: {channels: 1, height: 4, width: 4}
classes: 3
network:
  - {kind: flatten}
  - {kind: dense, units: 8}
  - {kind: relu}
  - {kind: dense, units: 3}
  - {kind: softmax_cross_entropy}
dataset: {kind: synthetic}
optimizer: {kind: nesterov, learning_rate: 0.05, momentum: 0.9, lr_min: 0.001, lr_max: 3}
target: {validation_error: 0.1, eval_every: 10, max_steps: 300}
)";

std::string dir() {
  const auto d = std::filesystem::temp_directory_path() / "kp_curve_cache_test";
  std::filesystem::create_directories(d);
  return d.string();
}

WorkloadSpec workload(const std::string& name, const std::string& step_curve) {
  const std::string path = dir() + "/" + name + ".yaml";
  std::ofstream(path) << kWorkload << step_curve;
  return parse_workload(ConfigDoc::load(path));
}

CurveProtocol tiny_protocol() {
  CurveProtocol p = curve_protocol("quick");
  p.name = "tiny";
  p.batches = {8, 32};
  p.trials = 3;
  p.eval_samples = 64;
  p.budget_steps = 100, p.budget_samples = 1600;
  return p;
}

std::string slurp(const std::string& path) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  return ss.str();
}

TEST(CurveCache, MissThenHitThenOtherSettingsMeasureAgain) {
  ::unsetenv("KP_NO_CURVE_MEASURE");  // this test measures (tiny), even where a suite forbids it
  const std::string csv = dir() + "/tiny_curve.csv";
  std::filesystem::remove(csv);
  std::filesystem::remove(csv + ".journal");
  WorkloadSpec w = workload("tiny", "step_curve: {source: measure, path: tiny_curve.csv, protocol: quick, seed: 3}\n");
  ASSERT_EQ(w.step_curve.path, csv);
  EXPECT_EQ(w.step_curve.protocol, "quick");
  EXPECT_EQ(w.step_curve.seed, 3u);

  std::ostringstream log1;
  const auto first = cached_or_measured_curve(w, tiny_protocol(), 2, log1);
  EXPECT_NE(log1.str().find("not measured yet"), std::string::npos) << log1.str();
  EXPECT_TRUE(std::filesystem::exists(csv + ".lock"));
  ASSERT_EQ(first.size(), 6u);  // 2 batch sizes x 3 trials
  const auto prov = read_curve_provenance(csv);
  ASSERT_TRUE(prov.count("fingerprint"));
  EXPECT_EQ(prov.at("fingerprint").size(), 16u);
  EXPECT_EQ(prov.at("protocol_name"), "tiny");
  EXPECT_EQ(prov.at("seed"), "3");
  EXPECT_TRUE(prov.count("b_simple"));
  const std::string text = slurp(csv);

  // Hit: nothing is trained (the log stays empty) and the file is untouched.
  std::ostringstream log2;
  const auto second = cached_or_measured_curve(w, tiny_protocol(), 1, log2);
  EXPECT_EQ(log2.str(), "");
  EXPECT_EQ(slurp(csv), text);
  ASSERT_EQ(second.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(second[i].batch, first[i].batch);
    EXPECT_EQ(second[i].steps, first[i].steps);
  }

  // Another target: the fingerprint differs, the curve is measured again (the old journal,
  // made with the old target, is restarted) and the cache replaced.
  w.target.validation_error = 0.2;
  // Where measuring is forbidden (e.g. a test suite), a stale cache is a clear error instead.
  ::setenv("KP_NO_CURVE_MEASURE", "1", 1);
  try {
    std::ostringstream ignored;
    cached_or_measured_curve(w, tiny_protocol(), 2, ignored);
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("KP_NO_CURVE_MEASURE"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("other settings"), std::string::npos) << e.what();
  }
  ::unsetenv("KP_NO_CURVE_MEASURE");
  std::ostringstream log3;
  cached_or_measured_curve(w, tiny_protocol(), 2, log3);
  EXPECT_NE(log3.str().find("made with other settings"), std::string::npos) << log3.str();
  // and the journal of the old settings is restarted, not resumed
  EXPECT_NE(log3.str().find("was made with other settings: starting it over"), std::string::npos)
      << log3.str();
  EXPECT_NE(read_curve_provenance(csv).at("fingerprint"), prov.at("fingerprint"));
  std::ostringstream log4;
  cached_or_measured_curve(w, tiny_protocol(), 2, log4);
  EXPECT_EQ(log4.str(), "");  // and is a hit again

  // So does another protocol, another seed, another network.
  const CurveSearchSpec s = curve_search_spec(w, tiny_protocol(), 3, 1);
  const ResolvedNetwork net = resolve_network(w.network);
  const std::string fp = curve_fingerprint(w, net, s, "tiny");
  EXPECT_NE(curve_fingerprint(w, net, s, "quick"), fp);
  EXPECT_NE(curve_fingerprint(w, net, curve_search_spec(w, tiny_protocol(), 4, 1), "tiny"), fp);
  WorkloadSpec wider = w;
  wider.network.layers[1].units = 9;
  EXPECT_NE(curve_fingerprint(wider, resolve_network(wider.network), s, "tiny"), fp);
  // ... but not the number of jobs or the dataset's folder.
  EXPECT_EQ(curve_fingerprint(w, net, curve_search_spec(w, tiny_protocol(), 3, 7), "tiny"), fp);
  WorkloadSpec moved = w;
  moved.dataset.path = "/elsewhere";
  EXPECT_EQ(curve_fingerprint(moved, net, s, "tiny"), fp);
}

TEST(CurveCache, BadProtocolNamesFileLineAndColumn) {
  try {
    workload("bad", "step_curve: {source: measure, path: x.csv, protocol: fast}\n");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.yaml:13:54:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("protocol"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fast"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace kp
