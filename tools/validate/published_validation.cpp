#include "tools/validate/published_validation.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include "core/config_error.h"
#include "core/csv_line.h"
#include "core/limits.h"
#include "core/precision.h"
#include "core/units.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/layout_search.h"
#include "tools/study/update_case.h"

namespace kp {
namespace {

const char* const kRequired[] = {"hw", "workload", "precision", "chips", "batch_per_chip", "samples_per_s", "source"};
const char* const kOptional[] = {"tp", "pp", "micro_batch", "recompute", "zero"};

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

class RowReader {
 public:
  RowReader(const std::string& origin, int line, const std::map<std::string, size_t>& cols, const CsvLine& csv,
            std::vector<Diagnostic>& errors)
      : m_origin(origin), m_line(line), m_cols(cols), m_csv(csv), m_errors(errors) {}

  bool has(const std::string& key) const { return m_cols.count(key) && !field(key).text.empty(); }
  const CsvField& field(const std::string& key) const { return m_csv.fields[m_cols.at(key)]; }
  void error(const std::string& key, const std::string& message) {
    m_errors.push_back(Diagnostic{m_origin, m_line, field(key).col, key, message});
  }
  std::string text(const std::string& key) {
    if (field(key).text.empty()) error(key, "expected a value, got an empty field");
    return field(key).text;
  }
  int64_t integer(const std::string& key, int64_t lo, int64_t hi) {
    const std::string t = text(key);
    int64_t v = 0;
    if (!t.empty() && (!parse_int64(t, v) || v < lo || v > hi))
      error(key, "expected an integer in [" + std::to_string(lo) + ", " + format_limit(hi) + "], got \"" + t + "\"");
    return v;
  }
  double positive(const std::string& key) {
    const std::string t = text(key);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (!t.empty() && (end != t.c_str() + t.size() || !std::isfinite(v) || v <= 0))
      error(key, "expected a positive number, got \"" + t + "\"");
    return v;
  }

 private:
  std::string m_origin;
  int m_line;
  const std::map<std::string, size_t>& m_cols;
  const CsvLine& m_csv;
  std::vector<Diagnostic>& m_errors;
};

std::string resolve(const std::string& root, const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return (root.empty() ? std::string(".") : root) + "/" + p;
}

// The optional layout columns (core/layout_spec.h's keys and ranges), each error at its field.
void read_layout(RowReader& r, PublishedRow& row) {
  for (const char* key : kOptional) {
    if (!r.has(key)) continue;
    if (!row.has_layout) row.layout_col = r.field(key).col, row.layout_key = key;
    row.has_layout = true;
    const std::string why = set_layout_key(row.layout, key, r.field(key).text);
    if (!why.empty()) r.error(key, why);
  }
}


}  // namespace

std::vector<PublishedRow> read_published(const std::string& path, const std::string& root) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "cannot read the file");
  std::vector<Diagnostic> errors;
  std::vector<PublishedRow> rows;
  std::map<std::string, size_t> cols;
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const CsvLine csv = split_csv_line(line);
    if (!csv.error.empty()) {
      errors.push_back(Diagnostic{path, n, csv.error_col, "", csv.error});
      continue;
    }
    if (!header) {
      header = true;
      for (size_t i = 0; i < csv.fields.size(); ++i) {
        const std::string& name = csv.fields[i].text;
        bool known = false;
        for (const char* k : kRequired) known = known || name == k;
        for (const char* k : kOptional) known = known || name == k;
        if (!known)
          errors.push_back(Diagnostic{path, n, csv.fields[i].col, name,
                                      "unknown column (known: hw, workload, precision, chips, batch_per_chip, "
                                      "samples_per_s, source, tp, pp, micro_batch, recompute, zero)"});
        else if (!cols.emplace(name, i).second)
          errors.push_back(Diagnostic{path, n, csv.fields[i].col, name, "the column is given twice"});
      }
      for (const char* k : kRequired)
        if (!cols.count(k)) errors.push_back(Diagnostic{path, n, 1, k, "missing required column"});
      if (!errors.empty()) break;
      continue;
    }
    if (csv.fields.size() != cols.size()) {
      errors.push_back(Diagnostic{path, n, 1, "", "expected " + std::to_string(cols.size()) + " fields (the header's), got " +
                                                      std::to_string(csv.fields.size())});
      continue;
    }
    RowReader r(path, n, cols, csv, errors);
    PublishedRow row;
    row.origin = path, row.line = n;
    row.hw_text = r.text("hw"), row.workload_text = r.text("workload");
    row.hw = resolve(root, row.hw_text), row.workload = resolve(root, row.workload_text);
    if (!row.hw_text.empty() && !is_file(row.hw)) r.error("hw", "no such file: " + row.hw);
    if (!row.workload_text.empty() && !is_file(row.workload)) r.error("workload", "no such file: " + row.workload);
    row.precision = r.text("precision");
    row.precision_col = r.field("precision").col, row.chips_col = r.field("chips").col;
    PrecisionPolicy p;
    if (!row.precision.empty() && !precision_preset(row.precision, p))
      r.error("precision", "expected a preset (" + preset_names() + "), got \"" + row.precision + "\"");
    row.chips = r.integer("chips", 1, limits::kLearners);
    row.batch_per_chip = r.integer("batch_per_chip", 1, limits::kBatch);
    row.samples_per_s = r.positive("samples_per_s");
    row.source = r.text("source");
    read_layout(r, row);
    rows.push_back(row);
  }
  if (errors.empty() && !header) errors.push_back(Diagnostic{path, 0, 0, "", "no header line (hw,workload,...)"});
  if (errors.empty() && rows.empty()) errors.push_back(Diagnostic{path, 0, 0, "", "no data rows"});
  if (!errors.empty()) throw ConfigError(errors);
  return rows;
}

std::vector<PublishedPrediction> predict_published(const std::vector<PublishedRow>& rows, const std::string& fidelity) {
  std::vector<PublishedPrediction> out;
  for (const PublishedRow& row : rows) {
    const auto at = [&](const std::string& key, const std::string& message) {
      return ConfigError({Diagnostic{row.origin, row.line, key == "chips" ? row.chips_col : row.precision_col, key, message}});
    };
    const HardwareSpec hw = load_hardware(row.hw);
    PrecisionSpec spec;
    spec.options.emplace_back();
    precision_preset(row.precision, spec.options.back());
    if (const std::string why = precision_problem(spec, hw); !why.empty()) throw at("precision", why);
    if (row.chips > hw.interconnect.max_learners)
      throw at("chips", "expected at most " + std::to_string(hw.interconnect.max_learners) +
                            " (interconnect.max_learners of " + row.hw + "), got " + std::to_string(row.chips));
    if (const std::string why = learners_problem(hw.interconnect, row.chips); !why.empty()) throw at("chips", why);
    const Case c = load_update_case(row.hw, row.workload, {"workload.precision=" + row.precision});
    const int64_t batch = row.chips * row.batch_per_chip;
    LayoutChoice layout;
    layout.fixed = row.layout;
    const auto model = make_update_model(c, fidelity, row.has_layout ? &layout : nullptr);
    const auto layout_error = [&](const std::string& message) {
      return ConfigError({Diagnostic{row.origin, row.line, row.layout_col, row.layout_key, message}});
    };
    if (const auto* lm = dynamic_cast<const LayoutModel*>(model.get()))
      if (const std::string why = lm->problem(batch, row.chips); !why.empty()) throw layout_error(why);
    const UpdateResult r = model->simulate(batch, row.chips);
    if (!r.fits)
      throw layout_error("the step does not fit device memory under " + r.layout.text() + " (" +
                         format_quantity(r.memory.total(), Dim::Bytes) + " of " +
                         format_quantity(r.memory.capacity, Dim::Bytes) + ")");
    PublishedPrediction p;
    p.t_update_s = r.breakdown.t_update_s;
    p.samples_per_s = static_cast<double>(batch) / p.t_update_s;
    p.error_pct = 100.0 * (p.samples_per_s - row.samples_per_s) / row.samples_per_s;
    out.push_back(p);
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> published_ratio_pairs(const std::vector<PublishedRow>& rows) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t a = 0; a < rows.size(); ++a)
    for (size_t b = a + 1; b < rows.size(); ++b) {
      const PublishedRow &x = rows[a], &y = rows[b];
      if (x.workload != y.workload || x.batch_per_chip == 0) continue;
      const bool same_system = x.hw == y.hw && x.precision == y.precision;
      if ((x.chips == y.chips && !same_system) || (x.chips != y.chips && same_system)) out.emplace_back(a, b);
    }
  return out;
}

}  // namespace kp
