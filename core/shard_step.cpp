#include "core/shard_step.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/int_math.h"

namespace kp {
namespace {

// Multiply-adds (and vector ops) of a layer per sample: the weight that balances stages.
std::vector<double> layer_work(const LoweredStep& step) {
  std::vector<double> w(step.layers.size(), 0.0);
  for (const Op& op : step.ops) {
    if (op.phase == Phase::Update || static_cast<size_t>(op.layer) >= w.size()) continue;
    const double runs = static_cast<double>(op.serial);
    w[static_cast<size_t>(op.layer)] += runs * (op.kind == OpKind::Gemm ? static_cast<double>(op.gemm_at(1).macs())
                                                                       : static_cast<double>(op.elements_at(1)) *
                                                                             op.ops_per_element);
  }
  return w;
}

// Cut candidates: after each residual join where there are any, else after every layer.
std::vector<int32_t> cut_candidates(const LoweredStep& step) {
  const auto n = static_cast<int32_t>(step.layers.size());
  std::vector<int32_t> joins, all;
  for (int32_t i = 0; i + 1 < n; ++i) {
    all.push_back(i + 1);
    if (step.layers[static_cast<size_t>(i)].checkpoint) joins.push_back(i + 1);
  }
  return joins.empty() ? all : joins;
}

// pp - 1 cuts, each the candidate nearest to k/pp of the work, strictly increasing.
std::vector<int32_t> choose_cuts(const LoweredStep& step, int64_t pp) {
  const std::vector<double> w = layer_work(step);
  std::vector<double> prefix(w.size() + 1, 0.0);
  for (size_t i = 0; i < w.size(); ++i) prefix[i + 1] = prefix[i] + w[i];
  const std::vector<int32_t> cand = cut_candidates(step);
  std::vector<int32_t> cuts;
  size_t next = 0;  // first candidate still allowed
  for (int64_t k = 1; k < pp; ++k) {
    const double target = prefix.back() * static_cast<double>(k) / static_cast<double>(pp);
    // Leave enough candidates for the cuts still to come.
    const size_t last = cand.size() - static_cast<size_t>(pp - k);
    size_t best = next;
    for (size_t c = next; c <= last; ++c)
      if (std::abs(prefix[static_cast<size_t>(cand[c])] - target) <
          std::abs(prefix[static_cast<size_t>(cand[best])] - target))
        best = c;
    cuts.push_back(cand[best]);
    next = best + 1;
  }
  return cuts;
}

void divide(Op& op, int64_t tp, bool sequence_parallel) {
  if (tp == 1) return;
  switch (op.tp_dim) {
    case TpDim::M: op.gemm.m = ceil_div(op.gemm.m, tp); break;
    case TpDim::N: op.gemm.n = ceil_div(op.gemm.n, tp); break;
    case TpDim::K: op.gemm.k = ceil_div(op.gemm.k, tp); break;
    case TpDim::Groups: op.gemm.groups = ceil_div(op.gemm.groups, tp); break;
    case TpDim::Elements: op.elements = ceil_div(op.elements, tp); break;
    case TpDim::None:
      // Sequence parallelism splits the replicated per-token work (norms, dropout, residuals)
      // along the sequence; their parameters stay whole on every chip.
      if (sequence_parallel && op.kind == OpKind::Elementwise && op.per_sample && op.phase != Phase::Update)
        op.elements = ceil_div(op.elements, tp);
      return;
  }
  op.grad_params = ceil_div(op.grad_params, tp);
}

}  // namespace

int64_t cut_points(const LoweredStep& step) { return static_cast<int64_t>(cut_candidates(step).size()); }

std::string shard_problem(const LoweredStep& step, int64_t pp) {
  const int64_t cuts = cut_points(step);
  if (pp - 1 > cuts)
    return "pp = " + std::to_string(pp) + " stages need " + std::to_string(pp - 1) + " cuts; the network has " +
           std::to_string(cuts) + " places to cut (after residual joins, or between layers)";
  return "";
}

namespace {

// A step built by hand (tests) may lack per-layer records: one record per layer, the step's
// activations on the first.
LoweredStep with_layer_info(const LoweredStep& in) {
  LoweredStep step = in;
  if (!step.layers.empty()) return step;
  int32_t layers = 0;
  for (const Op& op : step.ops)
    if (op.phase != Phase::Update) layers = std::max(layers, op.layer + 1);
  step.layers.resize(static_cast<size_t>(std::max(layers, 1)));
  step.layers.front().saved_elements = step.activation_elements_per_sample;
  return step;
}

}  // namespace

std::vector<StageStep> shard_step(const LoweredStep& original, int64_t tp, int64_t pp, Recompute recompute,
                                  bool sequence_parallel) {
  const LoweredStep step = with_layer_info(original);
  const std::string problem = shard_problem(step, pp);
  if (!problem.empty()) throw std::invalid_argument("shard_step: " + problem);
  const auto n_layers = static_cast<int32_t>(step.layers.size());
  std::vector<int32_t> bounds = choose_cuts(step, pp);
  bounds.insert(bounds.begin(), 0);
  bounds.push_back(n_layers);
  const Op update = step.ops.empty() ? Op{} : step.ops.back();
  std::vector<std::vector<Op>> forward_of(step.layers.size());
  for (const Op& op : step.ops)
    if (op.phase == Phase::Forward) forward_of[static_cast<size_t>(op.layer)].push_back(op);
  const int64_t sp_div = sequence_parallel ? tp : 1;
  std::vector<StageStep> stages;
  int64_t incoming = 0;  // the previous stage's boundary elements
  for (size_t s = 0; s + 1 < bounds.size(); ++s) {
    StageStep st;
    st.first_layer = bounds[s], st.end_layer = bounds[s + 1];
    LoweredStep& out = st.step;
    out.layer_names = step.layer_names;
    out.layers = step.layers;
    out.tokens_per_sample = step.tokens_per_sample;
    out.optimizer_state_tensors = step.optimizer_state_tensors;
    auto in_stage = [&](int32_t layer) { return layer >= st.first_layer && layer < st.end_layer; };
    std::vector<bool> recomputed(step.layers.size(), false);
    std::vector<int64_t> layer_params(step.layers.size(), 0);
    auto emit = [&](Op op) {
      divide(op, tp, sequence_parallel);
      if (tp > 1 && op.tp_reduce_elements > 0)
        (op.phase == Phase::Forward ? st.tp_reduce_forward : st.tp_reduce_backward).push_back(op.tp_reduce_elements);
      layer_params[static_cast<size_t>(op.layer)] += op.grad_params;
      out.params += op.grad_params;
      if (op.phase == Phase::Forward && op.per_sample) {
        const GemmDims g = op.gemm_at(1);
        const int64_t e = op.kind == OpKind::Gemm ? g.m * g.n * g.groups : op.elements;
        st.largest_op_elements = std::max(st.largest_op_elements, e);
      }
      out.ops.push_back(op);
    };
    for (const Op& op : step.ops) {
      if (op.phase == Phase::Update || !in_stage(op.layer)) continue;
      const auto l = static_cast<size_t>(op.layer);
      if (op.phase != Phase::Forward && recompute != Recompute::None && !recomputed[l]) {
        recomputed[l] = true;
        for (Op f : forward_of[l]) {
          if (recompute == Recompute::Selective && !f.attention_core) continue;
          f.phase = Phase::BackwardData;
          f.grad_params = 0;
          emit(f);
        }
      }
      emit(op);
    }
    Op u = update;
    if (tp == 1 && pp == 1) out.params = step.params;  // the update as lowered
    else u.elements = out.params;
    if (update.phase == Phase::Update) out.ops.push_back(u);
    // Activations kept for backward, per chip.
    int64_t saved = 0, checkpoints = 0, segment = 0, peak = 0;
    for (int32_t i = st.first_layer; i < st.end_layer; ++i) {
      const LayerInfo& info = step.layers[static_cast<size_t>(i)];
      const int64_t div = info.split ? tp : sp_div;
      const int64_t kept = recompute == Recompute::Selective ? info.saved_elements - info.core_elements
                                                             : info.saved_elements;
      saved += ceil_div(kept, div);
      segment += ceil_div(info.saved_elements, div);
      if (info.checkpoint) {
        checkpoints += ceil_div(info.out_elements, sp_div);
        peak = std::max(peak, segment), segment = 0;
      }
      st.largest_layer_params = std::max(st.largest_layer_params, layer_params[static_cast<size_t>(i)]);
    }
    peak = std::max(peak, segment);
    st.saved_elements = recompute == Recompute::Full ? incoming + checkpoints + peak : saved;
    out.activation_elements_per_sample = st.saved_elements;
    for (int32_t i = 0; i < st.end_layer && st.end_layer < n_layers; ++i)
      if (step.layers[static_cast<size_t>(i)].last_reader >= st.end_layer)
        st.boundary_elements += step.layers[static_cast<size_t>(i)].out_elements;
    incoming = st.boundary_elements;
    stages.push_back(std::move(st));
  }
  return stages;
}

}  // namespace kp
