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

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    out.push_back(cell);
  }
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// Reads a CSV with the given required columns; returns one cell vector per data row, in the order
// of `columns`, with its 1-based line. Every problem is collected, then thrown as one ConfigError.
struct CsvRow {
  int line;
  std::vector<std::string> cells;
};

std::vector<CsvRow> read_csv(const std::string& path, const std::vector<std::string>& columns,
                             std::vector<Diagnostic>& diags) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "cannot open the file");
  std::string text;
  if (!std::getline(in, text)) throw ConfigError(path, "empty file, expected a header line");
  const std::vector<std::string> header = split_csv(text);
  std::vector<size_t> index;
  for (const std::string& col : columns) {
    const auto it = std::find(header.begin(), header.end(), col);
    if (it == header.end()) {
      diags.push_back({path, 1, 1, col, "missing column (header is \"" + text + "\")"});
      continue;
    }
    index.push_back(static_cast<size_t>(it - header.begin()));
  }
  if (!diags.empty()) throw ConfigError(diags);
  std::vector<CsvRow> rows;
  int line = 1;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text == "\r") continue;
    const std::vector<std::string> cells = split_csv(text);
    if (cells.size() != header.size()) {
      diags.push_back({path, line, 1, "", "expected " + std::to_string(header.size()) + " columns, got " +
                                               std::to_string(cells.size())});
      continue;
    }
    CsvRow r{line, {}};
    for (size_t i : index) r.cells.push_back(cells[i]);
    rows.push_back(r);
  }
  return rows;
}

double number(const CsvRow& r, size_t i, const std::string& col, const std::string& path, bool integer,
              std::vector<Diagnostic>& diags) {
  const std::string& s = r.cells[i];
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  const bool ok = !s.empty() && end && *end == '\0' && errno == 0 && std::isfinite(v) && v >= 0 &&
                  (!integer || (v >= 1 && v == std::floor(v)));
  if (!ok) {
    diags.push_back({path, r.line, 1, col,
                     std::string(integer ? "expected an integer >= 1" : "expected a number >= 0 (seconds)") +
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
  return g;
}

std::vector<PlacementRow> read_placements(const std::string& path) {
  std::vector<Diagnostic> diags;
  const auto rows = read_csv(path, {"placement", "local_bsz", "step_time", "sync_time"}, diags);
  std::vector<PlacementRow> out;
  for (const CsvRow& r : rows) {
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
  for (const CsvRow& r : rows) {
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
  const AnalyticUpdate model(m.hw, c.step, m.hw.array.bytes_per_element);
  return from_result(model.simulate(row.local_bsz * m.learners, m.learners));
}

std::vector<PolluxStepPrediction> predict_pollux_rows(const Case& c, const std::vector<PlacementRow>& rows,
                                                      const std::string& fidelity) {
  if (fidelity != "analytic" && fidelity != "systemc")
    throw ConfigError("--fidelity", "expected analytic or systemc, got \"" + fidelity + "\"");
  using Key = std::tuple<int64_t, int64_t, int64_t>;  // GPUs per node, nodes, local batch
  std::map<Key, PolluxStepPrediction> done;
  std::map<int64_t, std::vector<OpCost>> chip_costs;  // systemc: per local batch
  const SystemcUpdate chip(c.hw, c.step, c.hw.array.bytes_per_element);
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
        const SystemcUpdate model(m.hw, c.step, m.hw.array.bytes_per_element);
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
