#include "sim/systemc/systemc_update.h"

#include <algorithm>
#include <stdexcept>

#include "sim/analytic/step_profile.h"
#include "sim/analytic/update_analytic.h"
#include "sim/systemc/net/net_runner.h"
#include "sim/systemc/sc_pool.h"

namespace kp {
namespace {

ScChipConfig chip_config(const HardwareSpec& hw, int64_t bytes_per_element) {
  ScChipConfig c;
  c.rows = hw.array.rows, c.cols = hw.array.cols, c.arrays = hw.array.count;
  c.dataflow = hw.array.dataflow;
  const double bpe = static_cast<double>(bytes_per_element);
  const int64_t sram_words = static_cast<int64_t>(hw.sram.capacity_bytes / 3 / bpe);
  c.ifmap_sram_words = c.filter_sram_words = c.ofmap_sram_words = std::max<int64_t>(sram_words, 1);
  c.dram_words_per_cycle =
      std::max<int64_t>(1, static_cast<int64_t>(hw.dram.bandwidth_bytes_per_s / hw.clock_hz / bpe));
  return c;
}

}  // namespace

SystemcUpdate::SystemcUpdate(const HardwareSpec& hw, const LoweredStep& step, int64_t bytes_per_element)
    : m_hw(hw), m_step(step), m_chip(hw, bytes_per_element), m_chip_config(chip_config(hw, bytes_per_element)),
      m_bytes(bytes_per_element) {}

int64_t SystemcUpdate::micro_batch(int64_t per_learner_batch) const {
  const int64_t accum = accumulation_steps(m_hw, m_step, per_learner_batch, m_bytes);
  return (per_learner_batch + accum - 1) / accum;
}

ScJob SystemcUpdate::gemm_job(int64_t per_learner_batch, std::vector<size_t>& op_of) const {
  // One job: the step's GEMMs back to back on one chip, each from a preloaded first fold (as the
  // twin, which costs every op on its own), at the micro-step's batch.
  const int64_t m = micro_batch(per_learner_batch);
  ScJob job;
  job.chip = m_chip_config;
  op_of.clear();
  for (size_t i = 0; i < m_step.ops.size(); ++i) {
    const Op& op = m_step.ops[i];
    if (op.kind != OpKind::Gemm) continue;
    const GemmDims g = op.gemm_at(m);
    if (g.m == 0 || g.n == 0 || g.k == 0) continue;
    job.layers.push_back(GemmShape{g.m, g.n, g.k});
    op_of.push_back(i);
  }
  return job;
}

std::vector<ScLayerResult> SystemcUpdate::per_op_results(const std::vector<ScLayerResult>& job_result,
                                                         const std::vector<size_t>& op_of) const {
  if (job_result.size() != op_of.size())
    throw std::runtime_error("SystemcUpdate: the SystemC worker returned the wrong number of layers");
  std::vector<ScLayerResult> out(m_step.ops.size());
  for (size_t l = 0; l < op_of.size(); ++l) out[op_of[l]] = job_result[l];
  return out;
}

std::vector<ScLayerResult> SystemcUpdate::gemm_results(int64_t m) const {
  std::vector<size_t> op_of;
  const ScJob job = gemm_job(m, op_of);
  if (op_of.empty()) return std::vector<ScLayerResult>(m_step.ops.size());
  const auto res = run_systolic_sc_pool({job}, 1);  // one worker: a single elaboration in a child
  if (res.size() != 1) throw std::runtime_error("SystemcUpdate: the SystemC worker returned no result");
  return per_op_results(res[0], op_of);
}

// The loop mirrors AnalyticUpdate::simulate (same bucketed overlap); only GEMM costs differ.
UpdateResult SystemcUpdate::simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>* layers) const {
  if (batch < 1 || learners < 1) throw std::invalid_argument("simulate: batch and learners must be >= 1");
  return simulate_with(gemm_results((batch + learners - 1) / learners), batch, learners, layers);
}

UpdateResult SystemcUpdate::simulate_with(const std::vector<ScLayerResult>& sc, int64_t batch, int64_t learners,
                                          std::vector<LayerRecord>* layers) const {
  if (batch < 1 || learners < 1) throw std::invalid_argument("simulate: batch and learners must be >= 1");
  if (sc.size() != m_step.ops.size()) throw std::invalid_argument("simulate_with: one result per op expected");
  const int64_t per_learner = (batch + learners - 1) / learners;
  const int64_t accum = accumulation_steps(m_hw, m_step, per_learner, m_bytes);
  const int64_t m = micro_batch(per_learner);
  const SystolicArraySpec& a = m_hw.array;
  StepProfileBuilder builder(m_step, m_hw.interconnect.bucket_bytes, m_bytes, m, layers);
  for (size_t i = 0; i < m_step.ops.size(); ++i) {
    const Op& op = m_step.ops[i];
    OpCost c = m_chip.cost(op, m);  // traffic and action counts (energy) from the twin
    if (op.kind == OpKind::Gemm && c.macs > 0) {
      c.cycles = sc[i].total_cycles + 1;
      c.compute_s = static_cast<double>(c.cycles) / (m_hw.clock_hz * m_hw.compute_efficiency);
      c.utilization = c.macs / (static_cast<double>(c.cycles) * a.rows * a.cols * a.count);
      c.seconds = std::max(c.compute_s, c.sram_bytes / m_hw.sram.bandwidth_bytes_per_s);
    }
    builder.add(op, c);
  }
  const StepProfile prof = builder.done();
  const std::vector<double> allreduce = bucket_allreduce_s(m_hw.interconnect, learners, prof);
  return finish_update(prof, m_hw, per_learner, learners, accum, &allreduce);
}

// Each bucket's all-reduce on the SystemC interconnect. Buckets run one after another on an
// otherwise idle network (one collective stream, as NCCL in DDP), so a bucket's time depends only
// on its size: one simulation per distinct size, all in one forked worker.
std::vector<double> bucket_allreduce_s(const InterconnectSpec& ic, int64_t learners, const StepProfile& prof) {
  std::vector<double> out(prof.buckets.size(), 0.0);
  if (learners <= 1) return out;
  std::vector<NetJob> jobs;
  for (const auto& bucket : prof.buckets) {
    bool seen = false;
    for (const NetJob& j : jobs) seen = seen || j.bytes == bucket.second;
    if (!seen) jobs.push_back(NetJob{ic, learners, bucket.second, true});
  }
  const std::vector<NetRunStats> res = run_net_sc_forked(jobs);
  for (size_t b = 0; b < out.size(); ++b)
    for (size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].bytes == prof.buckets[b].second) out[b] = res[j].seconds;
  return out;
}

}  // namespace kp

// libsystemc.so references sc_main (its main() calls it), so every binary linking it needs one.
// Binaries with their own main() (kneepoint) never reach libsystemc's main; this weak definition
// satisfies the linker for them, and a binary whose entry point is sc_main (the SystemC tests)
// overrides it with its strong definition.
extern "C" __attribute__((weak)) int sc_main(int, char**) { return 2; }
