// kneepoint's SCALE-Sim path against real SCALE-Sim v2 outputs (tests/data/scalesim/reference, a
// copy of ../shared/reference/scalesim's inputs and COMPUTE reports):
// CALC mode reproduced exactly, USER (10 words/cycle) mode within 10% of Total Cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/scalesim/compute_report.h"
#include "sim/scalesim/scalesim_run.h"

namespace kp {
namespace {

namespace fs = std::filesystem;
const std::string kRef = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/reference";
const std::string kTopo = std::string(KP_SOURCE_DIR) + "/tests/data/scalesim/topologies";

struct Case {
  ScaleSimConfig config;
  std::vector<ScaleSimLayer> layers;
  std::vector<ComputeReportRow> reference;
};

Case load(const fs::path& result_dir) {
  const std::string cfg = result_dir.filename().string();
  const std::string topo = result_dir.parent_path().filename().string();
  Case c;
  c.config = read_scalesim_config(kRef + "/configs/" + cfg + ".cfg");
  c.layers = read_scalesim_topology(kRef + "/topologies/" + topo + ".csv", TopologyFormat::Conv);
  c.reference = read_compute_report((result_dir / "COMPUTE_REPORT.csv").string());
  return c;
}

std::vector<fs::path> result_dirs() {
  std::vector<fs::path> dirs;
  for (const auto& topo : fs::directory_iterator(kRef + "/results")) {
    for (const auto& cfg : fs::directory_iterator(topo.path())) dirs.push_back(cfg.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

TEST(ScaleSimReference, CalcModeReproducedExactly) {
  int checked = 0;
  for (const fs::path& dir : result_dirs()) {
    const Case c = load(dir);
    if (c.config.interface_bandwidth != InterfaceBandwidth::Calc) continue;
    const auto ours = simulate_scalesim(c.config, c.layers);
    ASSERT_EQ(ours.size(), c.reference.size()) << dir;
    for (size_t i = 0; i < ours.size(); ++i) {
      const ComputeReportRow& a = ours[i].report;
      const ComputeReportRow& r = c.reference[i];
      SCOPED_TRACE(dir.filename().string() + " layer " + std::to_string(i));
      EXPECT_EQ(a.layer_id, r.layer_id);
      EXPECT_EQ(a.total_cycles, r.total_cycles);
      EXPECT_EQ(a.stall_cycles, 0);
      EXPECT_NEAR(a.overall_util_pct, r.overall_util_pct, 1e-6);
      EXPECT_NEAR(a.mapping_efficiency_pct, r.mapping_efficiency_pct, 1e-6);
      EXPECT_NEAR(a.compute_util_pct, r.compute_util_pct, 1e-6);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6 * 4);  // 32x32 and 128x128, os/ws/is, four layers each
}

// Per-fold double-buffered stall model vs SCALE-Sim's USER mode: the issue asks for 10%; the
// model's errors are printed so a reviewer sees them.
TEST(ScaleSimReference, UserBandwidthWithinTenPercent) {
  int checked = 0;
  for (const fs::path& dir : result_dirs()) {
    const Case c = load(dir);
    if (c.config.interface_bandwidth != InterfaceBandwidth::User) continue;
    const auto ours = simulate_scalesim(c.config, c.layers);
    ASSERT_EQ(ours.size(), c.reference.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      const ComputeReportRow& a = ours[i].report;
      const ComputeReportRow& r = c.reference[i];
      const double err = (static_cast<double>(a.total_cycles) - r.total_cycles) / r.total_cycles;
      std::printf("  %-22s layer %zu: total %6lld vs %6lld (%+.2f%%), stall %6lld vs %6lld\n",
                  dir.filename().string().c_str(), i, static_cast<long long>(a.total_cycles),
                  static_cast<long long>(r.total_cycles), 100 * err, static_cast<long long>(a.stall_cycles),
                  static_cast<long long>(r.stall_cycles));
      EXPECT_LE(std::fabs(err), 0.10) << dir.filename() << " layer " << i;
      if (r.stall_cycles == 0) {
        EXPECT_EQ(a.stall_cycles, 0);
      }
      EXPECT_NEAR(a.compute_util_pct, r.compute_util_pct, 1e-6);
      EXPECT_NEAR(a.mapping_efficiency_pct, r.mapping_efficiency_pct, 1e-6);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * 4);
}

// SCALE-Sim's buffer mechanics replayed (memory_replay.h): the same two USER runs, cycle for cycle.
TEST(ScaleSimReference, UserBandwidthBufferReplayEqualsScaleSim) {
  int checked = 0;
  for (const fs::path& dir : result_dirs()) {
    const Case c = load(dir);
    if (c.config.interface_bandwidth != InterfaceBandwidth::User) continue;
    const auto ours = simulate_scalesim(c.config, c.layers, StallSource::BufferReplay);
    ASSERT_EQ(ours.size(), c.reference.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      SCOPED_TRACE(dir.filename().string() + " layer " + std::to_string(i));
      EXPECT_EQ(ours[i].report.total_cycles, c.reference[i].total_cycles);
      EXPECT_EQ(ours[i].report.stall_cycles, c.reference[i].stall_cycles);
      EXPECT_NEAR(ours[i].report.overall_util_pct, c.reference[i].overall_util_pct, 1e-9);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * 4);
}

TEST(ComputeReport, WritesScaleSimFormat) {
  std::vector<ComputeReportRow> rows{{0, 2174, 0, 28.173873045078196, 98.0, 28.1609195402299},
                                     {1, 10, 3, 1e-05, 100.0, 0.5}};
  std::ostringstream out;
  write_compute_report(out, rows);
  EXPECT_EQ(out.str(),
            "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n"
            "0, 2174, 0, 28.173873045078196, 98.0, 28.1609195402299,\n"
            "1, 10, 3, 1e-05, 100.0, 0.5,\n");
}

// Golden: for every CALC-mode reference run our COMPUTE_REPORT.csv is byte-identical to SCALE-Sim's.
TEST(ComputeReport, CalcReportsAreByteIdentical) {
  int checked = 0;
  for (const fs::path& dir : result_dirs()) {
    const Case c = load(dir);
    if (c.config.interface_bandwidth != InterfaceBandwidth::Calc) continue;
    std::vector<ComputeReportRow> rows;
    for (const auto& r : simulate_scalesim(c.config, c.layers)) rows.push_back(r.report);
    std::ostringstream ours;
    write_compute_report(ours, rows);
    std::ifstream in(dir / "COMPUTE_REPORT.csv");
    std::stringstream ref;
    ref << in.rdbuf();
    EXPECT_EQ(ours.str(), ref.str()) << dir;
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

// SCALE-Sim's bundled networks run through every dataflow on 128x128 (the speed anchor's inputs).
TEST(ScaleSimReference, BundledTopologiesRun) {
  for (const char* net : {"alexnet.csv", "Resnet18.csv"}) {
    const auto layers = read_scalesim_topology(kTopo + "/" + net, TopologyFormat::Conv);
    for (Dataflow d : {Dataflow::OutputStationary, Dataflow::WeightStationary, Dataflow::InputStationary}) {
      ScaleSimConfig cfg;
      cfg.array_height = cfg.array_width = 128;
      cfg.dataflow = d;
      for (const auto& r : simulate_scalesim(cfg, layers)) {
        EXPECT_GT(r.report.total_cycles, 0);
        EXPECT_GT(r.report.overall_util_pct, 0);
        EXPECT_LE(r.report.mapping_efficiency_pct, 100.0);
      }
    }
  }
}

}  // namespace
}  // namespace kp
