#include "tools/study/result_codec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace kp {
namespace {

class Out {
 public:
  Out& i(int64_t v) { return raw(std::to_string(v)); }
  Out& u(size_t v) { return raw(std::to_string(v)); }
  // The shortest digits that read back as exactly v (std::to_chars), as %.17g's 17 digits do,
  // several times faster: a study of 10^4 designs writes ~10^6 numbers.
  Out& d(double v) {
    char buf[40];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    if (!m_text.empty()) m_text += ' ';
    m_text.append(buf, r.ptr);
    return *this;
  }
  Out& s(const std::string& v) {
    std::string e = v.empty() ? "%" : "";  // a lone % stands for the empty string
    for (unsigned char c : v) {
      if (c > 0x20 && c < 0x7f && c != '%') {
        e += static_cast<char>(c);
      } else {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", c);
        e += buf;
      }
    }
    return raw(e);
  }
  Out& raw(const std::string& token) {
    if (!m_text.empty()) m_text += ' ';
    m_text += token;
    return *this;
  }
  const std::string& text() const { return m_text; }

 private:
  std::string m_text;
};

class In {
 public:
  explicit In(const std::string& text) : m_text(text) {}
  std::string token() {
    if (m_pos >= m_text.size()) throw std::runtime_error("journal record: the record ends too early");
    const size_t end = std::min(m_text.find(' ', m_pos), m_text.size());
    std::string t = m_text.substr(m_pos, end - m_pos);
    m_pos = end + 1;
    return t;
  }
  int64_t i() {
    const std::string t = token();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end || errno == ERANGE)
      throw std::runtime_error("journal record: expected an integer, got \"" + t + "\"");
    return v;
  }
  size_t u() {
    const int64_t v = i();
    if (v < 0) throw std::runtime_error("journal record: expected a count or index >= 0, got " + std::to_string(v));
    return static_cast<size_t>(v);
  }
  // A count of items that follow: each takes at least one token ("x "), so one larger than the
  // rest of the record is corrupt (and must not size a vector: a bad count is not a bad_alloc).
  size_t count() {
    const size_t n = u();
    if (n > (m_text.size() - std::min(m_pos, m_text.size())) / 2 + 1)
      throw std::runtime_error("journal record: a count of " + std::to_string(n) + " items exceeds the record");
    return n;
  }
  double d() {
    if (m_pos >= m_text.size()) throw std::runtime_error("journal record: the record ends too early");
    const size_t end = std::min(m_text.find(' ', m_pos), m_text.size());
    const char* first = m_text.data() + m_pos;
    const char* last = m_text.data() + end;
    double v = 0;
    const auto r = std::from_chars(first, last, v);
    if (first == last || r.ec != std::errc() || r.ptr != last)
      throw std::runtime_error("journal record: expected a number, got \"" + std::string(first, last) + "\"");
    m_pos = end + 1;
    return v;
  }
  std::string s() {
    const std::string t = token();
    if (t == "%") return "";
    std::string v;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] != '%') {
        v += t[k];
        continue;
      }
      if (k + 2 >= t.size() || !std::isxdigit(static_cast<unsigned char>(t[k + 1])) ||
          !std::isxdigit(static_cast<unsigned char>(t[k + 2])))
        throw std::runtime_error("journal record: bad escape in \"" + t + "\"");
      v += static_cast<char>(std::strtol(t.substr(k + 1, 2).c_str(), nullptr, 16));
      k += 2;
    }
    return v;
  }
  void done() const {
    if (m_pos < m_text.size()) throw std::runtime_error("journal record: unexpected trailing data");
  }

 private:
  const std::string& m_text;
  size_t m_pos = 0;
};

// Every TimePoint of a design, in a fixed order: their chip energies follow the record.
template <class S, class P = std::conditional_t<std::is_const<S>::value, const TimePoint, TimePoint>>
std::vector<P*> chip_energy_points(S& s) {
  std::vector<P*> out;
  for (auto& t : s.prediction.points) out.push_back(&t);
  for (auto& r : s.prediction.scaling) {
    out.push_back(&r.best);
    out.push_back(&r.weak);
  }
  out.push_back(&s.prediction.knee);
  out.push_back(&s.prediction.overall_best);
  out.push_back(&s.chosen);
  return out;
}

void put(Out& o, const TimePoint& p) {
  o.i(p.batch).i(p.learners).i(p.per_learner_batch).d(p.steps).d(p.t_update_s).d(p.t_total_s);
  o.d(p.energy_j).d(p.cost_usd);
  const UpdateBreakdown& b = p.breakdown;
  o.d(b.forward_s).d(b.backward_s).d(b.allreduce_s).d(b.allreduce_exposed_s).d(b.optimizer_s).d(b.t_update_s);
}

TimePoint get_point(In& in) {
  TimePoint p;
  p.batch = in.i();
  p.learners = in.i();
  p.per_learner_batch = in.i();
  p.steps = in.d();
  p.t_update_s = in.d();
  p.t_total_s = in.d();
  p.energy_j = in.d();
  p.cost_usd = in.d();
  UpdateBreakdown& b = p.breakdown;
  b.forward_s = in.d();
  b.backward_s = in.d();
  b.allreduce_s = in.d();
  b.allreduce_exposed_s = in.d();
  b.optimizer_s = in.d();
  b.t_update_s = in.d();
  return p;
}

// The layout, memory and layout parts of a point (sim/layout_update.h), after the chip energies.
void put_layout(Out& o, const TimePoint& p) {
  const Layout& l = p.layout;
  o.i(l.dp).i(l.tp).i(l.pp).i(l.zero).i(static_cast<int64_t>(l.recompute)).i(l.micro_batch);
  o.i(l.schedule == PipeSchedule::GPipe ? 1 : 0).i(l.sequence_parallel ? 1 : 0).i(p.fits ? 1 : 0);
  const MemoryParts& m = p.memory;
  o.d(m.weights).d(m.gradients).d(m.optimizer).d(m.activations).d(m.workspace).d(m.capacity);
  o.d(p.breakdown.pipeline_bubble_s).d(p.breakdown.p2p_s).d(p.breakdown.tp_comm_s);
}

double get_clock_scale(In& in) {
  const double v = in.d();
  if (!(v > 0 && v <= 1)) throw std::runtime_error("journal record: power clock scale out of range (0, 1]");
  return v;
}

void get_layout(In& in, TimePoint& p) {
  Layout& l = p.layout;
  auto ranged = [&](int64_t lo, int64_t hi) {
    const int64_t v = in.i();
    if (v < lo || v > hi) throw std::runtime_error("journal record: layout field out of range");
    return v;
  };
  l.dp = ranged(0, INT64_C(1) << 40), l.tp = ranged(1, 1 << 20), l.pp = ranged(1, 1 << 20);
  l.zero = static_cast<int>(ranged(0, 3));
  l.recompute = static_cast<Recompute>(ranged(0, 2));
  l.micro_batch = ranged(0, INT64_C(1) << 40);
  l.schedule = ranged(0, 1) ? PipeSchedule::GPipe : PipeSchedule::OneFOneB;
  l.sequence_parallel = ranged(0, 1) != 0;
  p.fits = ranged(0, 1) != 0;
  MemoryParts& m = p.memory;
  m.weights = in.d(), m.gradients = in.d(), m.optimizer = in.d(), m.activations = in.d(), m.workspace = in.d();
  m.capacity = in.d();
  p.breakdown.pipeline_bubble_s = in.d(), p.breakdown.p2p_s = in.d(), p.breakdown.tp_comm_s = in.d();
}

void put_list(Out& o, const std::vector<int64_t>& v) {
  o.u(v.size());
  for (int64_t x : v) o.i(x);
}

std::vector<int64_t> get_list(In& in) {
  std::vector<int64_t> v(in.count());
  for (int64_t& x : v) x = in.i();
  return v;
}

}  // namespace

std::string encode_header(const StudySpec& spec, const std::vector<WorkloadResult>& workloads) {
  Out o;
  o.s(spec.name).s(spec.source_file);
  o.u(spec.workloads.size());
  for (const std::string& w : spec.workloads) o.s(w);
  o.u(spec.hardware.size());
  for (const std::string& h : spec.hardware) o.s(h);
  o.u(spec.sweep.size());
  for (const SweepGroup& g : spec.sweep) {
    o.i(g.zip ? 1 : 0).u(g.axes.size());
    for (const SweepAxis& a : g.axes) {
      o.s(a.key).u(a.values.size());
      for (const std::string& v : a.values) o.s(v);
    }
  }
  put_list(o, spec.batches);
  put_list(o, spec.learners);
  o.d(spec.knee_threshold).i(spec.weak_per_learner_batch);
  o.u(spec.objectives.size());
  for (Objective ob : spec.objectives) o.i(static_cast<int64_t>(ob));
  o.i(spec.max_chips).d(spec.max_cost_usd).s(spec.fidelity).i(spec.verify_top);
  o.u(workloads.size());
  for (const WorkloadResult& w : workloads) {
    o.s(w.name).s(w.file).d(w.law.n_inf).d(w.law.alpha).i(w.params);
    o.u(w.band.measured.size());
    for (size_t k = 0; k < w.band.measured.size(); ++k)
      o.d(w.band.measured[k].batch).d(w.band.measured[k].steps).d(w.band.measured_lo[k]).d(w.band.measured_hi[k]);
    o.u(w.band.batch.size());
    for (size_t k = 0; k < w.band.batch.size(); ++k) o.d(w.band.batch[k]).d(w.band.lo[k]).d(w.band.hi[k]);
    o.d(w.band.confidence).s(w.band.method);
  }
  return o.text();
}

void decode_header(const std::string& text, StudySpec& spec, std::vector<WorkloadResult>& workloads) {
  In in(text);
  spec = StudySpec();
  spec.name = in.s();
  spec.source_file = in.s();
  spec.workloads.resize(in.count());
  for (std::string& w : spec.workloads) w = in.s();
  spec.hardware.resize(in.count());
  for (std::string& h : spec.hardware) h = in.s();
  spec.sweep.resize(in.count());
  for (SweepGroup& g : spec.sweep) {
    g.zip = in.i() != 0;
    g.axes.resize(in.count());
    for (SweepAxis& a : g.axes) {
      a.key = in.s();
      a.values.resize(in.count());
      for (std::string& v : a.values) v = in.s();
    }
  }
  spec.batches = get_list(in);
  spec.learners = get_list(in);
  spec.knee_threshold = in.d();
  spec.weak_per_learner_batch = in.i();
  spec.objectives.resize(in.count());
  for (Objective& ob : spec.objectives) {
    const int64_t v = in.i();
    if (v < static_cast<int64_t>(Objective::Time) || v > static_cast<int64_t>(Objective::Cost))
      throw std::runtime_error("journal record: objective " + std::to_string(v) + " is not one of time, energy, cost");
    ob = static_cast<Objective>(v);
  }
  spec.max_chips = in.i();
  spec.max_cost_usd = in.d();
  spec.fidelity = in.s();
  spec.verify_top = in.i();
  workloads.resize(in.count());
  for (WorkloadResult& w : workloads) {
    w.name = in.s();
    w.file = in.s();
    w.law.n_inf = in.d();
    w.law.alpha = in.d();
    w.params = in.i();
    const size_t m = in.count();
    w.band.measured.resize(m);
    w.band.measured_lo.resize(m);
    w.band.measured_hi.resize(m);
    for (size_t k = 0; k < m; ++k) {
      w.band.measured[k].batch = in.d();
      w.band.measured[k].steps = in.d();
      w.band.measured_lo[k] = in.d();
      w.band.measured_hi[k] = in.d();
    }
    const size_t n = in.count();
    w.band.batch.resize(n);
    w.band.lo.resize(n);
    w.band.hi.resize(n);
    for (size_t k = 0; k < n; ++k) {
      w.band.batch[k] = in.d();
      w.band.lo[k] = in.d();
      w.band.hi[k] = in.d();
    }
    w.band.confidence = in.d();
    w.band.method = in.s();
  }
  in.done();
}

std::string encode_design(const SystemResult& s) {
  Out o;
  o.u(s.index).s(s.name).s(s.hardware_name).s(s.file).u(s.workload);
  o.u(s.overrides.size());
  for (const Override& ov : s.overrides) o.s(ov.key).s(ov.value);
  o.i(s.max_learners).d(s.cost_per_chip_hour_usd).s(s.fidelity);
  const Prediction& p = s.prediction;
  o.u(p.points.size());
  for (const TimePoint& t : p.points) put(o, t);
  o.u(p.scaling.size());
  for (const ScalingRow& r : p.scaling) {
    o.i(r.learners).d(r.speedup);
    put(o, r.best);
    put(o, r.weak);
  }
  o.i(p.knee_learners);
  put(o, p.knee);
  put(o, p.overall_best);
  o.d(p.b_crit).i(s.feasible ? 1 : 0);
  put(o, s.chosen);
  // Power, area and price figures: required, so that a record cut anywhere is an error.
  o.i(s.power_modelled ? 1 : 0).d(s.tdp_w).d(s.area_m2).d(s.chip_price_usd);
  for (const TimePoint* t : chip_energy_points(s)) o.d(t->chip_energy_j);
  for (const TimePoint* t : chip_energy_points(s)) put_layout(o, *t);
  o.i(p.infeasible_points);
  for (const TimePoint* t : chip_energy_points(s)) o.d(t->breakdown.power_clock_scale);
  return o.text();
}

SystemResult decode_design(const std::string& text) {
  In in(text);
  SystemResult s;
  s.index = in.u();
  s.name = in.s();
  s.hardware_name = in.s();
  s.file = in.s();
  s.workload = in.u();
  s.overrides.resize(in.count());
  for (Override& ov : s.overrides) {
    ov.key = in.s();
    ov.value = in.s();
  }
  s.max_learners = in.i();
  s.cost_per_chip_hour_usd = in.d();
  s.fidelity = in.s();
  Prediction& p = s.prediction;
  p.points.resize(in.count());
  for (TimePoint& t : p.points) t = get_point(in);
  p.scaling.resize(in.count());
  for (ScalingRow& r : p.scaling) {
    r.learners = in.i();
    r.speedup = in.d();
    r.best = get_point(in);
    r.weak = get_point(in);
  }
  p.knee_learners = in.i();
  p.knee = get_point(in);
  p.overall_best = get_point(in);
  p.b_crit = in.d();
  s.feasible = in.i() != 0;
  s.chosen = get_point(in);
  s.power_modelled = in.i() != 0;
  s.tdp_w = in.d();
  s.area_m2 = in.d();
  s.chip_price_usd = in.d();
  for (TimePoint* t : chip_energy_points(s)) t->chip_energy_j = in.d();
  for (TimePoint* t : chip_energy_points(s)) get_layout(in, *t);
  p.infeasible_points = in.i();
  if (p.infeasible_points < 0 || p.infeasible_points > (INT64_C(1) << 40))
    throw std::runtime_error("journal record: infeasible point count out of range");
  for (TimePoint* t : chip_energy_points(s)) t->breakdown.power_clock_scale = get_clock_scale(in);
  in.done();
  return s;
}

std::string encode_verify(size_t index, const VerifyResult& v) {
  Out o;
  o.u(index).i(v.done ? 1 : 0).d(v.t_update_rel_diff);
  put(o, v.systemc);
  o.d(v.systemc.chip_energy_j).d(v.systemc.breakdown.power_clock_scale);
  return o.text();
}

VerifyResult decode_verify(const std::string& text, size_t& index) {
  In in(text);
  VerifyResult v;
  index = in.u();
  v.done = in.i() != 0;
  v.t_update_rel_diff = in.d();
  v.systemc = get_point(in);
  v.systemc.chip_energy_j = in.d();
  v.systemc.breakdown.power_clock_scale = get_clock_scale(in);
  in.done();
  return v;
}

}  // namespace kp
