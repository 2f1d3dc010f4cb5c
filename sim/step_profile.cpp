#include "sim/step_profile.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/config_error.h"
#include "core/units.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/analytic/update_analytic.h"

namespace kp {

StepProfileBuilder::StepProfileBuilder(const LoweredStep& step, double bucket_bytes, double first_bucket_bytes,
                                       int64_t grad_bytes_per_param, int64_t per_learner_batch,
                                       std::vector<LayerRecord>* layers)
    : m_step(step),
      m_bucket_limit(bucket_bytes),
      m_first_limit(std::min(first_bucket_bytes, bucket_bytes)),
      m_grad_bytes(static_cast<double>(grad_bytes_per_param)),
      m_batch(per_learner_batch),
      m_layers(layers) {}

namespace {

// An op that runs `times` times one after another (a recurrence) costs `times` of one run: each
// run waits for the one before, so nothing of it overlaps.
OpCost repeated(const OpCost& one, int64_t times) {
  if (times == 1) return one;
  const double t = static_cast<double>(times);
  OpCost c = one;
  c.seconds *= t, c.compute_s *= t, c.stall_s *= t;
  c.cycles *= times, c.total_cycles *= times, c.stall_cycles *= times, c.tiles *= times;
  c.macs *= t, c.vector_ops *= t, c.sram_bytes *= t, c.dram_bytes *= t;
  c.dram_read_bytes *= t, c.dram_write_bytes *= t;
  return c;
}

// How much slower an op runs while a collective leaves it `units_left` of the units and
// `dram_left_bytes_per_s` of the device memory's bandwidth (step_profile.h: the roofline s).
double shared_stretch(const ProfileOp& op, double units_left, double dram_left_bytes_per_s) {
  double s = 1.0;
  if (op.compute_s > 0) s = std::max(s, op.compute_s / (units_left * op.seconds));
  if (op.dram_bytes > 0) {
    if (dram_left_bytes_per_s <= 0) return std::numeric_limits<double>::infinity();
    s = std::max(s, op.dram_bytes / (dram_left_bytes_per_s * op.seconds));
  }
  return s;
}

bool collective_shares_chip(const StepProfile& prof, const HardwareSpec& hw) {
  const OverlapSpec& o = hw.interconnect.overlap;
  return (o.units > 0 || o.dram_bytes_per_byte > 0) && !prof.ops.empty() &&
         prof.bucket_ready_op.size() == prof.buckets.size();
}

// The last micro-step's ops from t0, each bucket's all-reduce starting when it is ready and the one
// before has ended, every op stretched while one runs. Returns when backward ends; sets comm_end.
// No allocation (bucket_start_s aside, which only traces ask for).
template <class Duration>
double shared_schedule(const StepProfile& prof, const HardwareSpec& hw, int64_t learners, double t0,
                       const Duration& duration, double& comm_end, std::vector<double>* bucket_start_s) {
  const InterconnectSpec& ic = hw.interconnect;
  const double units_left = 1.0 - static_cast<double>(ic.overlap.units) / static_cast<double>(hw.array.count);
  const double bw = hw.dram.bandwidth_bytes_per_s;
  const size_t buckets = prof.buckets.size();
  size_t next = 0, ops_done = 0;
  bool busy = false;
  double t = t0, end = 0, dram_left = bw;
  auto start_ready = [&] {
    if (busy || next >= buckets || static_cast<size_t>(prof.bucket_ready_op[next]) >= ops_done) return;
    const double d = duration(next);
    if (bucket_start_s) bucket_start_s->push_back(t);
    busy = true, end = t + d;
    dram_left = bw - allreduce_dram_bytes_per_s(ic, learners, prof.buckets[next].second, d);
    ++next;
  };
  for (const ProfileOp& op : prof.ops) {
    double left = op.seconds;  // of its time on an idle chip
    while (left > 0 && busy) {
      const double s = shared_stretch(op, units_left, dram_left);
      if (t + s * left <= end) {
        t += s * left, left = 0;
      } else {
        left -= (end - t) / s;
        t = end, busy = false, comm_end = end;
        start_ready();
      }
    }
    t += left;
    ++ops_done;
    start_ready();
  }
  const double backward_end = t;
  while (busy) {  // every bucket is ready now: the rest run back to back
    t = end, busy = false, comm_end = end;
    start_ready();
  }
  return backward_end;
}

}  // namespace

void StepProfileBuilder::add(const Op& op, const OpCost& one) {
  // Every run of a serial op (a step of a recurrence) is a kernel launch of its own.
  // An op fused into the previous one's kernel is launched with it: no wait, no kernel of its own.
  OpCost c = one;
  const double wait = op.fused_with_previous ? 0.0 : std::max(0.0, m_launch_s - c.seconds);
  c.seconds += wait;
  c = repeated(c, op.serial);
  const double waits = wait * static_cast<double>(op.serial);
  const int64_t launches = op.fused_with_previous ? 0 : op.serial;
  const bool first = m_prof.kernels == 0;
  if (op.phase == Phase::Update) m_prof.optimizer_launch_wait_s += waits, m_prof.optimizer_kernels += launches;
  else m_prof.launch_wait_s += waits, m_prof.kernels += launches;
  // The first layer's A operand is the input batch (implicit GEMM: the tensor, not its im2col).
  if (first && op.kind == OpKind::Gemm && m_batch > 0) {
    const GemmDims g = op.gemm_at(m_batch);
    m_prof.input_bytes_per_sample = static_cast<double>(g.m) * static_cast<double>(g.k) * op.a_unique_fraction *
                                    m_grad_bytes / static_cast<double>(m_batch);
  }
  if (op.phase == Phase::Forward) m_prof.forward_s += c.seconds;
  else if (op.phase == Phase::Update) m_prof.optimizer_s += c.seconds;
  else m_prof.backward_s += c.seconds;
  if (op.phase != Phase::Update) m_t += c.seconds;
  m_prof.actions.macs += c.macs;
  m_prof.actions.vector_ops += c.vector_ops;
  m_prof.actions.sram_bytes += c.sram_bytes;
  m_prof.actions.dram_bytes += c.dram_bytes;
  if (op.phase != Phase::Update) m_prof.ops.push_back(ProfileOp{c.seconds, c.compute_s, c.dram_bytes});
  if (op.grad_params > 0)
    m_grads.push_back(Grad{m_t, static_cast<double>(op.grad_params) * m_grad_bytes,
                           static_cast<int64_t>(m_prof.ops.size()) - 1});
  if (m_layers) {
    LayerRecord rec;
    rec.name = m_step.layer_names[static_cast<size_t>(op.layer)];
    rec.phase = op.phase;
    if (op.kind == OpKind::Gemm) rec.gemm = op.gemm_at(m_batch);
    rec.cycles = c.total_cycles, rec.compute_cycles = c.cycles, rec.stall_cycles = c.stall_cycles;
    rec.utilization = c.utilization;
    rec.seconds = c.seconds;
    rec.sram_bytes = c.sram_bytes, rec.dram_read_bytes = c.dram_read_bytes, rec.dram_write_bytes = c.dram_write_bytes;
    rec.macs = c.macs, rec.vector_ops = c.vector_ops, rec.tiles = c.tiles;
    m_layers->push_back(rec);
  }
}

StepProfile StepProfileBuilder::done() {
  // Assign in definition order (backward order reversed); the first-defined gradient of a bucket
  // is produced last, so it sets the bucket's ready time.
  m_prof.buckets.clear();
  m_prof.bucket_ready_op.clear();
  double bytes = 0, ready = 0;
  int64_t ready_op = 0;
  for (auto it = m_grads.rbegin(); it != m_grads.rend(); ++it) {
    if (bytes == 0) ready = it->ready_s, ready_op = it->op;
    bytes += it->bytes;
    if (bytes >= (m_prof.buckets.empty() ? m_first_limit : m_bucket_limit)) {
      m_prof.buckets.emplace_back(ready, bytes);
      m_prof.bucket_ready_op.push_back(ready_op);
      bytes = 0;
    }
  }
  if (bytes > 0) {  // the last assigned, partial
    m_prof.buckets.emplace_back(ready, bytes);
    m_prof.bucket_ready_op.push_back(ready_op);
  }
  std::reverse(m_prof.buckets.begin(), m_prof.buckets.end());  // reduction order
  std::reverse(m_prof.bucket_ready_op.begin(), m_prof.bucket_ready_op.end());
  m_grads.clear();
  m_prof.backward_end_s = m_t;
  return m_prof;
}

UpdateResult finish_update(const StepProfile& prof, const HardwareSpec& hw, int64_t per_learner_batch,
                           int64_t learners, int64_t accumulation, const std::vector<double>* bucket_allreduce_s,
                           std::vector<double>* bucket_start_s) {
  UpdateResult r;
  r.per_learner_batch = per_learner_batch;
  r.accumulation_steps = accumulation;
  r.layout.dp = learners;
  const double a = static_cast<double>(accumulation);
  r.actions = prof.actions;
  r.actions.macs *= a, r.actions.vector_ops *= a, r.actions.sram_bytes *= a, r.actions.dram_bytes *= a;
  UpdateBreakdown& b = r.breakdown;
  b.forward_s = prof.forward_s * a;
  b.backward_s = prof.backward_s * a;
  b.optimizer_s = prof.optimizer_s;
  const double last_start = (a - 1.0) * prof.backward_end_s;  // the micro-step that all-reduces
  double comm_end = 0;  // when the last started bucket's all-reduce ends
  double backward_end = last_start + prof.backward_end_s;
  if (learners > 1) {
    const InterconnectSpec& ic = hw.interconnect;
    const auto duration = [&](size_t i) {
      return bucket_allreduce_s ? (*bucket_allreduce_s)[i] : allreduce_s(ic, learners, prof.buckets[i].second);
    };
    const bool shared = collective_shares_chip(prof, hw);
    for (size_t i = 0; i < prof.buckets.size(); ++i) {
      const auto& [ready_s, bytes] = prof.buckets[i];
      const double d = duration(i);
      if (!shared) {
        const double start = std::max(comm_end, last_start + ready_s);
        if (bucket_start_s) bucket_start_s->push_back(start);
        comm_end = start + d;
      }
      b.allreduce_s += d;
      r.actions.link_bytes += allreduce_bytes_per_chip(ic, learners, bytes);
    }
    if (shared) {
      const double end = shared_schedule(prof, hw, learners, last_start, duration, comm_end, bucket_start_s);
      b.backward_s += end - backward_end;  // the stretch: backward's compute ran on what was left
      backward_end = end;
    }
  }
  b.allreduce_exposed_s = std::max(0.0, comm_end - backward_end);
  b.launch_wait_s = prof.launch_wait_s * a + prof.optimizer_launch_wait_s;
  r.kernels = prof.kernels * accumulation + prof.optimizer_kernels;
  const RuntimeSpec& rt = hw.runtime;
  b.host_s = rt.step_overhead_s + (rt.launch_batching ? rt.kernel_launch_s : 0.0);
  const double batch = static_cast<double>(per_learner_batch);
  const double copy_s = rt.host_link_bytes_per_s > 0 ? batch * prof.input_bytes_per_sample / rt.host_link_bytes_per_s : 0;
  const double busy_s = b.forward_s + b.backward_s + b.allreduce_exposed_s + b.optimizer_s + b.host_s + copy_s;
  double load_wait_s = 0;
  if (rt.input_samples_per_s > 0) {
    const double per_host = batch * static_cast<double>(std::min(learners, hw.interconnect.devices_per_node));
    load_wait_s = std::max(0.0, per_host / rt.input_samples_per_s - busy_s);
  }
  b.input_s = copy_s + load_wait_s;
  b.t_update_s = busy_s + load_wait_s;
  r.energy_j = update_energy_j(hw.energy, r.actions, learners);
  return r;
}

int64_t accumulation_steps(const HardwareSpec& hw, const MemoryNeed& need, int64_t m) {
  const double room = hw.dram.capacity_bytes - need.fixed_bytes;
  if (room < need.per_sample_bytes)
    // A user's design, not a bug: a ConfigError naming the hardware file's capacity key (exit 2).
    throw ConfigError({Diagnostic{hw.source_file, 0, 0, "chip.memory.dram.capacity",
                                  "the model does not fit device memory: one sample needs " +
                                      need.at(1, hw.dram.capacity_bytes).describe() + ", the capacity is " +
                                      format_quantity(hw.dram.capacity_bytes, Dim::Bytes) +
                                      " (shard the optimizer state and weights with --layout zero=1..3, split"
                                      " the model with tp or pp, recompute activations, or pick a larger memory)"}});
  if (need.per_sample_bytes <= 0) return 1;
  const auto fit = static_cast<int64_t>(room / need.per_sample_bytes);
  return (m + fit - 1) / fit;
}

}  // namespace kp
