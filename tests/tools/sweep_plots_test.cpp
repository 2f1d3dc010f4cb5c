// The design-space figures of the report on hand-computed cases: perf/W and perf/$, the time x cost
// x energy front, the swept keys' values, the best design per value and the two-key heat map.
#include <gtest/gtest.h>

#include "tools/report/design_metrics.h"
#include "tools/report/sweep_plots.h"
#include "tests/tools/text_count.h"

namespace kp {
namespace {

// One design with its chosen point; the study ranks by time.
SystemResult design(size_t index, double t_s, double usd, double j, std::vector<Override> overrides) {
  SystemResult s;
  s.index = index;
  s.file = "hw.yaml";
  s.hardware_name = "chip";
  s.name = "chip " + std::to_string(index);
  s.overrides = std::move(overrides);
  s.feasible = true;
  s.chosen.batch = 32;
  s.chosen.learners = 1;
  s.chosen.steps = 100;
  s.chosen.t_total_s = t_s;
  s.chosen.cost_usd = usd;
  s.chosen.energy_j = j;
  return s;
}

// rows in {64, 128} x capacity in {16, 32 MiB}: time = 1000 / rows + capacity in MiB (s), energy
// 10 J and cost 1 USD per second. Ranks by time: (128, 16) 23.8125 s, (64, 16) 31.625 s,
// (128, 32) 39.8125 s, (64, 32) 47.625 s.
StudyResult grid_study() {
  StudyResult r;
  r.spec.objectives = {Objective::Time};
  r.workloads.push_back(WorkloadResult{"net", "wl.yaml", {100, 6400}, 1000, {}});
  const int ranks[2][2] = {{2, 4}, {1, 3}};
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 2; ++k) {
      const double rows = i ? 128 : 64, mib = k ? 32 : 16, t = 1000 / rows + mib;
      SystemResult s = design(r.systems.size(), t, t, 10 * t,
                              {{"chip.compute.array.rows", i ? "128" : "64"},
                               {"chip.memory.sram.capacity", k ? "32 MiB" : "16 MiB"}});
      s.rank = ranks[i][k];
      r.systems.push_back(s);
    }
  return r;
}

}  // namespace

TEST(DesignMetrics, PerfPerWattAndPerDollarCountTheRunsSamples) {
  const SystemResult s = design(0, 10, 8, 64, {});
  // 100 steps x 32 samples = 3200 samples; 3200 / 64 J = 50; 3200 / 8 USD = 400.
  EXPECT_DOUBLE_EQ(samples_per_joule(s.chosen), 50.0);
  EXPECT_DOUBLE_EQ(samples_per_usd(s.chosen), 400.0);
  EXPECT_EQ(samples_per_joule(design(0, 10, 0, 0, {}).chosen), 0.0);  // no energy modelled: no figure
}

TEST(DesignMetrics, TimeCostEnergyFrontKeepsTheUnbeatenFeasibleDesigns) {
  StudyResult r;
  r.workloads.resize(1);
  r.systems = {design(0, 1, 2, 3, {}), design(1, 2, 1, 3, {}), design(2, 2, 2, 3, {}), design(3, 0.5, 0.5, 0.5, {})};
  r.systems[3].feasible = false;  // would beat all, but meets no constraint
  // 0 and 1 trade time for cost; 2 is beaten by 0 (faster, same cost and energy).
  EXPECT_EQ(pareto_time_cost_energy(r), (std::vector<bool>{true, true, false, false}));
}

// The O(n log n) front against the definition (no worse on all three, better on one), on designs
// drawn from a few values so that ties of every kind occur; identical designs are both kept.
TEST(DesignMetrics, TimeCostEnergyFrontMatchesTheDefinitionWithTies) {
  StudyResult r;
  r.workloads.resize(2);
  uint64_t x = 12345;
  const auto next = [&x] { return (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 61; };  // 0..7
  for (size_t i = 0; i < 300; ++i) {
    r.systems.push_back(design(i, 1.0 + static_cast<double>(next()), 1.0 + static_cast<double>(next()),
                               1.0 + static_cast<double>(next()), {}));
    r.systems.back().workload = i % 2;
    r.systems.back().feasible = next() != 0;
  }
  const std::vector<bool> fast = pareto_time_cost_energy(r);
  size_t on_front = 0;
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const TimePoint& a = r.systems[i].chosen;
    bool dominated = false;
    for (size_t j = 0; j < r.systems.size(); ++j) {
      const TimePoint& b = r.systems[j].chosen;
      if (j == i || !r.systems[j].feasible || r.systems[j].workload != r.systems[i].workload) continue;
      dominated = dominated || (b.t_total_s <= a.t_total_s && b.cost_usd <= a.cost_usd && b.energy_j <= a.energy_j &&
                                (b.t_total_s < a.t_total_s || b.cost_usd < a.cost_usd || b.energy_j < a.energy_j));
    }
    EXPECT_EQ(fast[i], r.systems[i].feasible && !dominated) << "design " << i;
    on_front += fast[i];
  }
  EXPECT_GT(on_front, 2u);  // the case is not trivial
  r.systems = {design(0, 1, 1, 1, {}), design(1, 1, 1, 1, {})};
  EXPECT_EQ(pareto_time_cost_energy(r), (std::vector<bool>{true, true}));  // identical: neither beats the other
}

TEST(SweepPlots, SweptValuesAreNumbersWithTheirCommonUnit) {
  StudyResult r = grid_study();
  r.systems[0].overrides.push_back({"chip.compute.array.dataflow", "os"});
  const std::vector<SweptAxis> axes = swept_axes(r);
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_TRUE(axes[0].numeric);
  EXPECT_EQ(axes[0].unit, "");
  EXPECT_EQ(axes[0].values, (std::vector<double>{64, 64, 128, 128}));
  EXPECT_EQ(axes[1].unit, "MiB");
  EXPECT_EQ(axes[1].values, (std::vector<double>{16, 32, 16, 32}));
  EXPECT_FALSE(axes[2].numeric);  // a name: listed, not plotted
}

TEST(SweepPlots, EachValueShowsItsBestDesignAndTheLowestIsLabelled) {
  const StudyResult r = grid_study();
  const std::vector<std::string> plots = plot_objectives_against(r, swept_axes(r)[0]);
  ASSERT_EQ(plots.size(), 3u);  // time, energy, cost: no design has an area
  // rows 64: best is (64, 16 MiB), 31.625 s; rows 128: (128, 16 MiB), 23.8125 s, the lowest.
  EXPECT_NE(plots[0].find("lowest at 128"), std::string::npos);
  EXPECT_NE(plots[0].find(">rows</text>"), std::string::npos);  // the x axis; the section's heading has the key
  EXPECT_NE(plots[1].find("energy per training run (J)"), std::string::npos);
  const std::string html = sweep_section(r);
  EXPECT_EQ(count(html, "<svg"), 2 * 3 + 1u);  // two keys, three objectives, one heat map
  EXPECT_NE(html.find("chip.compute.array.rows against chip.memory.sram.capacity"), std::string::npos);
  EXPECT_NE(html.find("chip on net"), std::string::npos);  // the key names hardware and workload
  // The best design (rank 1) is (128, 16 MiB): the largest rows, the smallest capacity.
  EXPECT_NE(html.find("Best by time at rows = 128, the largest feasible value."), std::string::npos);
  EXPECT_NE(html.find("Best by time at capacity = 16 MiB, below the largest feasible value (32 MiB)."), std::string::npos);
}

TEST(SweepPlots, TheOptimumOfEveryKeyIsStatedOnce) {
  EXPECT_EQ(sweep_optimum_text(grid_study()),
            "Best by time at rows = 128, the largest feasible value. Best by time at capacity = 16 MiB, below the "
            "largest feasible value (32 MiB). ");
}

TEST(SweepPlots, HeatMapHasOneCellPerValuePairAndRingsTheBest) {
  const StudyResult r = grid_study();
  const std::vector<SweptAxis> axes = swept_axes(r);
  const std::string svg = plot_sweep_heatmap(r, 0, axes[0], axes[1]);
  EXPECT_EQ(count(svg, "</title></rect>"), 4u);
  EXPECT_NE(svg.find("best: 23.81"), std::string::npos);
  EXPECT_NE(svg.find("chip.memory.sram.capacity (MiB)"), std::string::npos);
}

TEST(SweepPlots, ZippedKeysGetNoHeatMap) {
  StudyResult r = grid_study();
  r.systems.resize(2);  // rows 64 with 16 and 32 MiB ...
  r.systems[1].overrides[0].value = "128";  // ... now rows and capacity move together
  EXPECT_EQ(sweep_section(r).find("rows against"), std::string::npos);
}

}  // namespace kp
