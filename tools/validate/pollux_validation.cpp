#include "tools/validate/pollux_validation.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <tuple>
#include <sstream>

#include "core/config_error.h"
#include "models/step_curve/csv_table.h"
#include "sim/analytic/update_analytic.h"
#include "sim/systemc/systemc_update.h"

namespace kp {

int64_t PlacementRow::learners() const {
  int64_t p = 0;
  for (int g : gpus_per_node) p += g;
  return p;
}

std::string PlacementRow::placement() const {
  std::string s;
  for (int g : gpus_per_node) s += static_cast<char>('0' + g);
  return s;
}

namespace {

// Reads a CSV (models/step_curve/csv_table.h: RFC 4180 quotes, size and row limits) with the
// given required columns; returns one cell vector per data row, in the order of `columns`, with
// its 1-based line and cell columns. Every problem is collected, then thrown as one ConfigError.
struct CsvCells {
  int line;
  std::vector<std::string> cells;
  std::vector<int> cols;
};

std::vector<CsvCells> read_csv(const std::string& path, const std::vector<std::string>& columns,
                               std::vector<Diagnostic>& diags) {
  const CsvTable table = read_csv_table(path);
  std::vector<int> index;
  for (const std::string& col : columns) {
    const int i = table.find(col);
    if (i < 0) {
      std::string header;
      for (const std::string& h : table.header) header += (header.empty() ? "" : ",") + h;
      diags.push_back({path, table.header_line, 1, col, "missing column (header is \"" + header + "\")"});
      continue;
    }
    index.push_back(i);
  }
  if (!diags.empty()) throw ConfigError(diags);
  diags = table.diagnostics;
  std::vector<CsvCells> rows;
  for (const CsvRow& row : table.rows) {
    CsvCells r{row.line, {}, {}};
    for (int i : index) {
      r.cells.push_back(row.fields[static_cast<size_t>(i)]);
      r.cols.push_back(row.cols[static_cast<size_t>(i)]);
    }
    rows.push_back(r);
  }
  if (rows.empty() && diags.empty())
    throw ConfigError({{path, table.header_line, 1, "", "no data rows after the header"}});
  return rows;
}

double number(const CsvCells& r, size_t i, const std::string& col, const std::string& path, bool integer,
              std::vector<Diagnostic>& diags) {
  const std::string& s = r.cells[i];
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  const bool ok = !s.empty() && end && *end == '\0' && errno == 0 && std::isfinite(v) && v >= 0 &&
                  (!integer || (v >= 1 && v <= 1e6 && v == std::floor(v)));
  if (!ok) {
    diags.push_back({path, r.line, r.cols[i], col,
                     std::string(integer ? "expected an integer in 1..1000000" : "expected a number >= 0 (seconds)") +
                         ", got \"" + s + "\""});
    return 0;
  }
  return v;
}

}  // namespace

std::vector<int> parse_placement(const std::string& text, const std::string& origin, int line) {
  std::vector<int> g;
  for (char ch : text) {
    if (ch < '1' || ch > '9')
      throw ConfigError({{origin, line, 1, "placement",
                          "expected digits 1-9 (GPUs per node), got \"" + text + "\""}});
    g.push_back(ch - '0');
  }
  if (g.empty()) throw ConfigError({{origin, line, 1, "placement", "expected digits 1-9, got an empty cell"}});
  if (g.size() > 64) throw ConfigError({{origin, line, 1, "placement", "more than 64 nodes"}});
  return g;
}

std::vector<PlacementRow> read_placements(const std::string& path) {
  std::vector<Diagnostic> diags;
  const auto rows = read_csv(path, {"placement", "local_bsz", "step_time", "sync_time"}, diags);
  std::vector<PlacementRow> out;
  for (const CsvCells& r : rows) {
    PlacementRow p;
    p.origin = path;
    p.line = r.line;
    try {
      p.gpus_per_node = parse_placement(r.cells[0], path, r.line);
    } catch (const ConfigError& e) {
      diags.insert(diags.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
    p.local_bsz = static_cast<int64_t>(number(r, 1, "local_bsz", path, true, diags));
    p.step_time_s = number(r, 2, "step_time", path, false, diags);
    p.sync_time_s = number(r, 3, "sync_time", path, false, diags);
    out.push_back(p);
  }
  if (!diags.empty()) throw ConfigError(diags);
  return out;
}

std::vector<PlacementRow> read_scalability(const std::string& path) {
  std::vector<Diagnostic> diags;
  const auto rows =
      read_csv(path, {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}, diags);
  std::vector<PlacementRow> out;
  for (const CsvCells& r : rows) {
    PlacementRow p;
    p.origin = path;
    p.line = r.line;
    const auto nodes = static_cast<int64_t>(number(r, 0, "num_nodes", path, true, diags));
    const auto replicas = static_cast<int64_t>(number(r, 1, "num_replicas", path, true, diags));
    p.local_bsz = static_cast<int64_t>(number(r, 2, "local_bsz", path, true, diags));
    p.step_time_s = number(r, 3, "step_time", path, false, diags);
    p.sync_time_s = number(r, 4, "sync_time", path, false, diags);
    if (nodes >= 1 && replicas >= 1) {
      if (replicas < nodes || replicas > 9 * nodes) {
        diags.push_back({path, r.line, 1, "num_replicas",
                         "expected between num_nodes and 9 x num_nodes, got " + std::to_string(replicas)});
      } else {
        for (int64_t n = 0; n < nodes; ++n)
          p.gpus_per_node.push_back(static_cast<int>(replicas / nodes + (n < replicas % nodes ? 1 : 0)));
      }
    }
    out.push_back(p);
  }
  if (!diags.empty()) throw ConfigError(diags);
  return out;
}

namespace {

// Uneven placements (e.g. "31"): the collectives assume full nodes, so every node is modelled with
// the most GPUs any node has. The node with the most GPUs does the most work in the ring and the
// ring waits for its slowest member, so this bounds the measured ring from above; compute per GPU is
// unchanged (local_bsz each). The model's learner count is therefore max_gpus x nodes, not the real P.
struct ModelledSystem {
  HardwareSpec hw;
  int64_t learners = 1;
};

ModelledSystem modelled_system(const Case& c, const PlacementRow& row) {
  const int g = *std::max_element(row.gpus_per_node.begin(), row.gpus_per_node.end());
  const auto nodes = static_cast<int64_t>(row.gpus_per_node.size());
  ModelledSystem m{c.hw, row.learners() == 1 ? 1 : g * nodes};
  m.hw.interconnect.devices_per_node = g;
  m.hw.interconnect.max_learners = std::max(m.hw.interconnect.max_learners, m.learners);
  return m;
}

PolluxStepPrediction from_result(const UpdateResult& r) {
  PolluxStepPrediction out;
  out.step_time_s = r.breakdown.t_update_s;
  out.sync_time_s = r.breakdown.allreduce_exposed_s;
  out.allreduce_s = r.breakdown.allreduce_s;
  return out;
}

}  // namespace

PolluxStepPrediction predict_pollux_row(const Case& c, const PlacementRow& row) {
  const ModelledSystem m = modelled_system(c, row);
  const AnalyticUpdate model(m.hw, c.step, c.precision);
  return from_result(model.simulate(row.local_bsz * m.learners, m.learners));
}

std::vector<PolluxStepPrediction> predict_pollux_rows(const Case& c, const std::vector<PlacementRow>& rows,
                                                      const std::string& fidelity) {
  if (fidelity != "analytic" && fidelity != "systemc")
    throw ConfigError("--fidelity", "expected analytic or systemc, got \"" + fidelity + "\"");
  using Key = std::tuple<int64_t, int64_t, int64_t>;  // GPUs per node, nodes, local batch
  std::map<Key, PolluxStepPrediction> done;
  std::map<int64_t, std::vector<OpCost>> chip_costs;  // systemc: per local batch
  const SystemcUpdate chip(c.hw, c.step, c.precision);
  std::vector<PolluxStepPrediction> out;
  out.reserve(rows.size());
  for (const PlacementRow& row : rows) {
    const ModelledSystem m = modelled_system(c, row);
    const Key key{m.hw.interconnect.devices_per_node, static_cast<int64_t>(row.gpus_per_node.size()), row.local_bsz};
    auto it = done.find(key);
    if (it == done.end()) {
      PolluxStepPrediction p;
      if (fidelity == "analytic") {
        p = predict_pollux_row(c, row);
      } else {
        auto costs = chip_costs.find(row.local_bsz);
        if (costs == chip_costs.end()) costs = chip_costs.emplace(row.local_bsz, chip.op_costs(row.local_bsz)).first;
        const SystemcUpdate model(m.hw, c.step, c.precision);
        p = from_result(model.simulate_with(costs->second, row.local_bsz * m.learners, m.learners));
      }
      it = done.emplace(key, p).first;
    }
    out.push_back(it->second);
  }
  return out;
}

double median_ape(const std::vector<double>& predicted, const std::vector<double>& measured) {
  std::vector<double> ape;
  for (size_t i = 0; i < predicted.size() && i < measured.size(); ++i)
    if (measured[i] > 0) ape.push_back(100.0 * std::fabs(predicted[i] - measured[i]) / measured[i]);
  if (ape.empty()) return std::nan("");
  std::sort(ape.begin(), ape.end());
  const size_t n = ape.size();
  return n % 2 ? ape[n / 2] : 0.5 * (ape[n / 2 - 1] + ape[n / 2]);
}

}  // namespace kp
