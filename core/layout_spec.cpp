#include "core/layout_spec.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/config_error.h"
#include "core/limits.h"

namespace kp {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "?";
}

const char* schedule_name(PipeSchedule s) { return s == PipeSchedule::GPipe ? "gpipe" : "1f1b"; }

std::string Layout::text() const {
  std::ostringstream o;
  o << "dp=" << dp << ",tp=" << tp << ",pp=" << pp;
  if (zero) o << ",zero=" << zero;
  if (recompute != Recompute::None) o << ",recompute=" << recompute_name(recompute);
  if (micro_batch) o << ",micro_batch=" << micro_batch;
  if (pp > 1 && schedule == PipeSchedule::GPipe) o << ",schedule=gpipe";
  if (sequence_parallel) o << ",sequence_parallel=true";
  return o.str();
}

namespace {

constexpr const char* kKeys = "dp, tp, pp, zero, recompute, micro_batch, schedule, sequence_parallel";

}  // namespace

std::string set_layout_key(Layout& l, const std::string& key, const std::string& value) {
  auto integer = [&](int64_t lo, int64_t hi, int64_t& out) -> std::string {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno != 0 || v < lo || v > hi)
      return "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got \"" + value + "\"";
    out = v;
    return "";
  };
  int64_t v = 0;
  if (key == "dp") return integer(1, limits::kLearners, l.dp);
  if (key == "tp") return integer(1, kMaxTensorParallel, l.tp);
  if (key == "pp") return integer(1, kMaxPipelineStages, l.pp);
  if (key == "micro_batch") return integer(1, limits::kBatch, l.micro_batch);
  if (key == "zero") {
    std::string e = integer(0, 3, v);
    l.zero = static_cast<int>(v);
    return e;
  }
  if (key == "recompute") {
    if (value == "none") l.recompute = Recompute::None;
    else if (value == "selective") l.recompute = Recompute::Selective;
    else if (value == "full") l.recompute = Recompute::Full;
    else return "expected none, selective or full, got \"" + value + "\"";
    return "";
  }
  if (key == "schedule") {
    if (value == "1f1b") l.schedule = PipeSchedule::OneFOneB;
    else if (value == "gpipe") l.schedule = PipeSchedule::GPipe;
    else return "expected 1f1b or gpipe, got \"" + value + "\"";
    return "";
  }
  if (key == "sequence_parallel") {
    if (value == "true") l.sequence_parallel = true;
    else if (value == "false") l.sequence_parallel = false;
    else return "expected true or false, got \"" + value + "\"";
    return "";
  }
  return std::string("unknown layout key (known: ") + kKeys + ")";
}


LayoutChoice parse_layout_text(const std::string& text, const std::string& origin) {
  LayoutChoice c;
  if (text == "search") {
    c.search = true;
    return c;
  }
  std::vector<Diagnostic> errors;
  std::vector<std::string> seen;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (eq == std::string::npos) {
      errors.push_back({origin, 0, 0, key, "expected key=value (keys: " + std::string(kKeys) + ") or \"search\""});
      continue;
    }
    for (const std::string& s : seen)
      if (s == key) errors.push_back({origin, 0, 0, key, "given twice"});
    seen.push_back(key);
    const std::string e = set_layout_key(c.fixed, key, item.substr(eq + 1));
    if (!e.empty()) errors.push_back({origin, 0, 0, key, e});
  }
  if (seen.empty()) errors.push_back({origin, 0, 0, "", "expected key=value pairs (" + std::string(kKeys) + ")"});
  if (!errors.empty()) throw ConfigError(errors);
  return c;
}

LayoutChoice parse_layout_node(ConfigMap& parent, const std::string& key) {
  LayoutChoice c;
  const YAML::Node& n = parent.node()[key];
  if (n.IsScalar()) {
    if (n.Scalar() == "search") c.search = true;
    else parent.error_at(n, key, "expected \"search\" or a map of " + std::string(kKeys) + ", got \"" + n.Scalar() + "\"");
    parent.mark_used(key);
    return c;
  }
  ConfigMap m = parent.map(key);
  Layout& l = c.fixed;
  l.dp = m.integer_or("dp", 1, limits::kLearners, 0);
  l.tp = m.integer_or("tp", 1, kMaxTensorParallel, 1);
  l.pp = m.integer_or("pp", 1, kMaxPipelineStages, 1);
  l.zero = static_cast<int>(m.integer_or("zero", 0, 3, 0));
  l.recompute = static_cast<Recompute>(m.choice_or("recompute", {"none", "selective", "full"}, 0));
  l.micro_batch = m.integer_or("micro_batch", 1, limits::kBatch, 0);
  l.schedule = m.choice_or("schedule", {"1f1b", "gpipe"}, 0) == 1 ? PipeSchedule::GPipe : PipeSchedule::OneFOneB;
  l.sequence_parallel = m.boolean_or("sequence_parallel", false);
  m.check_unknown();
  return c;
}

std::string layout_problem(const Layout& l, int64_t chips) {
  const int64_t model = l.tp * l.pp;
  if (chips % model != 0)
    return std::to_string(chips) + " chips are not a multiple of tp x pp = " + std::to_string(model);
  if (l.dp != 0 && l.dp * model != chips)
    return "dp x tp x pp = " + std::to_string(l.dp * model) + " chips, the point has " + std::to_string(chips);
  return "";
}

Layout layout_for_chips(const Layout& l, int64_t chips) {
  Layout r = l;
  r.dp = chips / (l.tp * l.pp);
  return r;
}

}  // namespace kp
