// `kneepoint scalesim -c CONFIG.cfg -t TOPOLOGY.csv [-i conv|gemm] [-o DIR]`: reads SCALE-Sim v2's
// config and topology formats, times every layer and writes DIR/COMPUTE_REPORT.csv with SCALE-Sim's
// columns. CALC interface bandwidth: the SystemC systolic-array model in a forked worker
// (sim/systemc/scalesim_sc.h, SCALE-Sim-exact). USER: the fold timing plus SCALE-Sim's own
// read/write buffer mechanics replayed line by line (sim/scalesim/memory_replay.h), which matches
// SCALE-Sim v2's Total and Stall Cycles (tests/sim/scalesim_memory_test.cpp).
#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include "core/atomic_file.h"
#include "core/config_error.h"
#include "sim/systemc/scalesim_sc.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace kp {
namespace {

void print_table(std::ostream& out, const ScaleSimConfig& cfg, const std::vector<ScaleSimLayer>& layers,
                 const std::vector<ScaleSimLayerResult>& results) {
  char line[256];
  std::snprintf(line, sizeof line, "%s: %lldx%lld array, %s, interface bandwidth %s\n", cfg.run_name.c_str(),
                static_cast<long long>(cfg.array_height), static_cast<long long>(cfg.array_width),
                dataflow_name(cfg.dataflow),
                cfg.interface_bandwidth == InterfaceBandwidth::Calc
                    ? "CALC"
                    : ("USER " + std::to_string(cfg.bandwidth_words_per_cycle) + " words/cycle").c_str());
  out << line;
  std::snprintf(line, sizeof line, "%-24s %8s %6s %6s %6s %12s %10s %9s %9s %9s\n", "layer", "M", "N", "K",
                "folds", "total_cyc", "stall_cyc", "overall%", "mapping%", "compute%");
  out << line;
  for (size_t i = 0; i < results.size(); ++i) {
    const ScaleSimLayerResult& r = results[i];
    std::snprintf(line, sizeof line, "%-24s %8lld %6lld %6lld %6lld %12lld %10lld %9.3f %9.3f %9.3f\n",
                  layers[i].name.c_str(), static_cast<long long>(layers[i].gemm.m),
                  static_cast<long long>(layers[i].gemm.n), static_cast<long long>(layers[i].gemm.k),
                  static_cast<long long>(r.timing.folds), static_cast<long long>(r.report.total_cycles),
                  static_cast<long long>(r.report.stall_cycles), r.report.overall_util_pct,
                  r.report.mapping_efficiency_pct, r.report.compute_util_pct);
    out << line;
  }
  if (cfg.interface_bandwidth == InterfaceBandwidth::User) {
    out << "stall cycles: SCALE-Sim's prefetch/drain buffers replayed per demand line (memory_replay.h)\n";
  }
}

// The SystemC model steps every fold and keeps a few dozen bytes per fold: 2^21 folds took 8.3 s
// and 170 MB (16384 x 16384 x 64 on 8 x 16, OS). 2^22 folds bounds a run to about 20 s and 400 MB;
// a bigger layer (M = N = K = 10^6 is ~10^10 folds) is refused with its line rather than run for
// days or exhaust memory.
constexpr int64_t kMaxFoldsPerLayer = int64_t{1} << 22;
constexpr int64_t kMaxFoldsPerRun = int64_t{1} << 24;  // all layers together (about a minute)

void check_fold_counts(const ScaleSimConfig& cfg, const std::vector<ScaleSimLayer>& layers,
                       const std::string& topology_path) {
  std::vector<Diagnostic> diags;
  int64_t total = 0;
  for (const ScaleSimLayer& l : layers) {
    const FoldTiming t = fold_timing(cfg.dataflow, cfg.array_height, cfg.array_width, l.gemm);
    total += std::min(t.folds, kMaxFoldsPerRun + 1);
    if (t.folds > kMaxFoldsPerLayer)
      diags.push_back({topology_path, l.line, 1, l.name,
                       "the layer needs " + std::to_string(t.folds) + " folds on the " +
                           std::to_string(cfg.array_height) + "x" + std::to_string(cfg.array_width) + " " +
                           dataflow_name(cfg.dataflow) + " array, more than the " +
                           std::to_string(kMaxFoldsPerLayer) + " the SystemC model runs per layer"});
  }
  if (diags.empty() && total > kMaxFoldsPerRun)
    diags.push_back({topology_path, 0, 0, "", "the layers need " + std::to_string(total) +
                                                  " folds in all, more than the " + std::to_string(kMaxFoldsPerRun) +
                                                  " the SystemC model runs at once: split the topology"});
  if (!diags.empty()) throw ConfigError(std::move(diags));
}

// The USER-mode replay walks every demand line (one per stall-free cycle): 68 M lines took 4.6 s
// (4096^3 GEMM on 32 x 32, OS, 1 MiB SRAMs, 10 words/cycle, this machine). 2^30 lines bounds a run
// to about a minute; a bigger one is refused with its line rather than run for hours.
constexpr int64_t kMaxReplayLinesPerRun = int64_t{1} << 30;

void check_replay_lines(const ScaleSimConfig& cfg, const std::vector<ScaleSimLayer>& layers,
                        const std::string& topology_path) {
  std::vector<Diagnostic> diags;
  int64_t total = 0;
  for (const ScaleSimLayer& l : layers) {
    const int64_t lines = fold_timing(cfg.dataflow, cfg.array_height, cfg.array_width, l.gemm).total_cycles + 1;
    total = std::min(total + lines, kMaxReplayLinesPerRun + 1);
    if (lines > kMaxReplayLinesPerRun)
      diags.push_back({topology_path, l.line, 1, l.name,
                       "the layer needs " + std::to_string(lines) + " cycles on the " +
                           std::to_string(cfg.array_height) + "x" + std::to_string(cfg.array_width) + " " +
                           dataflow_name(cfg.dataflow) + " array, more than the " +
                           std::to_string(kMaxReplayLinesPerRun) + " the USER-bandwidth replay walks per run"});
  }
  if (diags.empty() && total > kMaxReplayLinesPerRun)
    diags.push_back({topology_path, 0, 0, "", "the layers need more than " + std::to_string(kMaxReplayLinesPerRun) +
                                                  " cycles in all, the most the USER-bandwidth replay walks at once: "
                                                  "split the topology"});
  if (!diags.empty()) throw ConfigError(std::move(diags));
}

}  // namespace

int run_scalesim(const Args& args) {
  po::options_description desc("kneepoint scalesim options");
  std::string config_path, topology_path, mode, out_dir;
  desc.add_options()
      ("config,c", po::value(&config_path)->required(), "SCALE-Sim v2 .cfg file")
      ("topology,t", po::value(&topology_path)->required(), "SCALE-Sim topology .csv")
      ("input-type,i", po::value(&mode)->default_value("conv"), "topology format: conv or gemm")
      ("out,o", po::value(&out_dir)->default_value("."), "directory for COMPUTE_REPORT.csv");
  po::variables_map vm;
  if (!parse_options("scalesim", "kneepoint scalesim -c CONFIG.cfg -t TOPOLOGY.csv [-i conv|gemm] [-o DIR]",
                     args, desc, vm)) {
    return 0;
  }
  if (mode != "conv" && mode != "gemm") {
    throw ConfigError("-i " + mode, "expected conv or gemm");
  }
  const ScaleSimConfig cfg = read_scalesim_config(config_path);
  const auto layers =
      read_scalesim_topology(topology_path, mode == "gemm" ? TopologyFormat::Gemm : TopologyFormat::Conv);
  // CALC: the SystemC model, in a forked worker; USER: SCALE-Sim's buffers, in this process.
  const bool user = cfg.interface_bandwidth == InterfaceBandwidth::User;
  if (user) check_replay_lines(cfg, layers, topology_path);
  else check_fold_counts(cfg, layers, topology_path);
  const auto results = user ? simulate_scalesim(cfg, layers, StallSource::BufferReplay) : simulate_scalesim_sc(cfg, layers);

  std::vector<ComputeReportRow> rows;
  rows.reserve(results.size());
  for (const ScaleSimLayerResult& r : results) rows.push_back(r.report);
  std::ostringstream csv;
  write_compute_report(csv, rows);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw ConfigError("-o " + out_dir, "cannot create the output directory: " + ec.message());
  const std::string path = (std::filesystem::path(out_dir) / "COMPUTE_REPORT.csv").string();
  try {
    write_file_atomic(path, csv.str());
  } catch (const std::runtime_error& e) {
    throw ConfigError("-o " + out_dir, std::string("cannot write COMPUTE_REPORT.csv: ") + e.what());
  }
  print_table(std::cout, cfg, layers, results);
  std::cout << "wrote " << path << "\n";
  return 0;
}

}  // namespace kp
