#include "sim/layout_update.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/int_math.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/analytic/update_analytic.h"

namespace kp {

InterconnectSpec tp_group_interconnect(const InterconnectSpec& ic, int64_t tp) {
  InterconnectSpec g = ic;
  g.max_learners = tp;
  if (ic.topology == Topology::Hierarchical) {
    g.devices_per_node = tp;  // one node's fabric; the network is not used
  } else {
    g.topology = Topology::Ring, g.collective = Collective::Ring;
  }
  return g;
}

InterconnectSpec dp_group_interconnect(const InterconnectSpec& ic, int64_t tp, int64_t dp) {
  InterconnectSpec g = ic;
  if (ic.topology != Topology::Hierarchical) return g;
  const int64_t per_node = std::max<int64_t>(1, ic.devices_per_node / tp);
  g.devices_per_node = std::min(per_node, dp);
  g.max_learners = std::max(dp, g.devices_per_node);
  // The node's network carries the tp groups side by side.
  g.inter_node.bandwidth_bytes_per_s /= static_cast<double>(std::min(tp, ic.devices_per_node));
  return g;
}

InterconnectSpec p2p_interconnect(const InterconnectSpec& ic, int64_t senders, bool across_nodes) {
  InterconnectSpec g = ic;
  if (ic.topology == Topology::Hierarchical) {
    g.devices_per_node = across_nodes ? senders : 2;
    g.max_learners = across_nodes ? 2 * senders : 2;
  } else {
    g.max_learners = 2;
  }
  return g;
}

double p2p_closed_form_s(const InterconnectSpec& ic, int64_t senders, double bytes, bool across_nodes) {
  const double lanes = ic.topology == Topology::Ring || ic.topology == Topology::Torus2d
                           ? 1.0
                           : static_cast<double>(ic.links_per_chip);
  const double device = ic.link_achieved_bytes_per_s() * lanes;
  if (ic.topology != Topology::Hierarchical || !across_nodes) return ic.link.latency_s + bytes / device;
  const InterconnectSpec g = p2p_interconnect(ic, senders, true);
  const double nic = node_network_bytes_per_s(g, network_flows(g, senders));
  return ic.link.latency_s + ic.inter_node.latency_s +
         std::max(bytes / device, static_cast<double>(senders) * bytes / nic);
}

LayoutUpdate::LayoutUpdate(const HardwareSpec& hw, const LoweredStep& step, const TensorBytes& bytes,
                           std::shared_ptr<const StageTimer> timer)
    : m_hw(hw), m_step(step), m_tensor_bytes(bytes), m_timer(std::move(timer)), m_cut_points(cut_points(step)) {
  for (const Op& op : m_step.ops)
    if (op.tp_dim == TpDim::Groups) m_heads_gcd = std::gcd(m_heads_gcd, op.gemm.groups);
}

std::string LayoutUpdate::problem(const Layout& layout, int64_t chips) const {
  std::string p = layout_problem(layout, chips);
  if (!p.empty()) return p;
  const Layout l = layout_for_chips(layout, chips);
  const InterconnectSpec& ic = m_hw.interconnect;
  if (ic.topology == Topology::Hierarchical && (l.tp > ic.devices_per_node || ic.devices_per_node % l.tp != 0))
    return "tp = " + std::to_string(l.tp) + " must divide the " + std::to_string(ic.devices_per_node) +
           " devices of a node (tensor parallelism stays on the node's fabric)";
  // Heads must divide; other split dimensions are padded (Megatron pads the vocabulary).
  if (l.tp > 1 && m_heads_gcd % l.tp != 0)
    for (const Op& op : m_step.ops)  // name the layer
      if (op.tp_dim == TpDim::Groups && op.gemm.groups % l.tp != 0)
        return "tp = " + std::to_string(l.tp) + " does not divide the " + std::to_string(op.gemm.groups) +
               " attention heads of layer " + m_step.layer_names[static_cast<size_t>(op.layer)];
  if (l.pp - 1 > m_cut_points) return shard_problem(m_step, l.pp);
  if (l.dp > 1) {
    p = learners_problem(dp_group_interconnect(ic, l.tp, l.dp), l.dp);
    if (!p.empty()) return "the dp group of " + std::to_string(l.dp) + ": " + p;
  }
  return "";
}

const LayoutUpdate::Sharded& LayoutUpdate::sharded(const Layout& l) const {
  const auto key = std::make_tuple(l.tp, l.pp, static_cast<int>(l.recompute), l.sequence_parallel);
  auto it = m_sharded.find(key);
  if (it == m_sharded.end())
    it = m_sharded.emplace(key, Sharded{shard_step(m_step, l.tp, l.pp, l.recompute, l.sequence_parallel)}).first;
  return it->second;
}

const std::vector<StepProfile>& LayoutUpdate::profiles(const Layout& l, const Sharded& s, int64_t micro) const {
  const auto key = std::make_tuple(l.tp, l.pp, static_cast<int>(l.recompute), l.sequence_parallel, micro);
  auto it = m_profiles.find(key);
  if (it == m_profiles.end()) {
    std::vector<StepProfile> p;
    for (const StageStep& st : s.stages) p.push_back(m_timer->profile(st.step, micro));
    it = m_profiles.emplace(key, std::move(p)).first;
  }
  return it->second;
}

std::vector<Footprint> LayoutUpdate::footprints(const Sharded& s, const Layout& l, int64_t micro, int64_t m) const {
  std::vector<Footprint> f;
  for (size_t i = 0; i < s.stages.size(); ++i)
    f.push_back(stage_footprint(s.stages[i], static_cast<int>(i), l, m_tensor_bytes, micro, m, m_hw.dram.capacity_bytes));
  return f;
}

namespace {

bool all_fit(const std::vector<Footprint>& f) {
  for (const Footprint& x : f)
    if (!x.fits()) return false;
  return true;
}

}  // namespace

LayoutResult LayoutUpdate::simulate(int64_t batch, const Layout& layout) const {
  if (layout.dp < 1 || batch < layout.dp) throw std::invalid_argument("LayoutUpdate: needs dp >= 1 and batch >= dp");
  const std::string why = problem(layout, layout.chips());
  if (!why.empty()) throw std::invalid_argument("LayoutUpdate: " + why);
  std::lock_guard<std::mutex> lock(m_mutex);
  const Sharded& sh = sharded(layout);
  const int64_t replica = ceil_div(batch, layout.dp), pp = layout.pp;
  int64_t m = layout.micro_batch > 0 ? ceil_div(replica, layout.micro_batch) : pp == 1 ? 1 : std::min(replica, 4 * pp);
  int64_t micro = ceil_div(replica, m);
  std::vector<Footprint> fp = footprints(sh, layout, micro, m);
  while (layout.micro_batch == 0 && micro > 1 && !all_fit(fp)) {
    micro = ceil_div(micro, 2), m = ceil_div(replica, micro);
    fp = footprints(sh, layout, micro, m);
  }
  LayoutResult r;
  r.layout = layout;
  r.micro_batch = micro, r.micro_batches = m;
  r.fits = all_fit(fp);
  for (size_t i = 0; i < fp.size(); ++i)
    if (fp[i].total_bytes() > fp[static_cast<size_t>(r.footprint_stage)].total_bytes()) r.footprint_stage = static_cast<int>(i);
  r.footprint = fp[static_cast<size_t>(r.footprint_stage)];

  const std::vector<StepProfile>& prof = profiles(layout, sh, micro);
  const InterconnectSpec& ic = m_hw.interconnect;
  const InterconnectSpec ic_tp = tp_group_interconnect(ic, layout.tp);
  const double act = static_cast<double>(m_tensor_bytes.activations), u = static_cast<double>(micro), md = static_cast<double>(m);
  const double dp = static_cast<double>(layout.dp), tp = static_cast<double>(layout.tp);
  const bool cut_crosses_nodes = ic.topology == Topology::Hierarchical && layout.tp * layout.dp >= ic.devices_per_node;
  UpdateResult& res = r.update;
  UpdateBreakdown& b = res.breakdown;
  res.per_learner_batch = replica, res.accumulation_steps = m;
  double sum_t = 0, max_t = 0, p2p = 0, dp_exposed = 0, zero_gather = 0, optimizer = 0, max_f = 0, max_b = 0;
  ActionCounts actions;
  for (size_t s = 0; s < sh.stages.size(); ++s) {
    const StageStep& st = sh.stages[s];
    const StepProfile& p = prof[s];
    double tp_f = 0, tp_b = 0;
    for (int64_t e : st.tp_reduce_forward) tp_f += m_timer->allreduce_s(ic_tp, layout.tp, static_cast<double>(e) * u * act);
    for (int64_t e : st.tp_reduce_backward) tp_b += m_timer->allreduce_s(ic_tp, layout.tp, static_cast<double>(e) * u * act);
    const double f = p.forward_s + tp_f, bw = p.backward_s + tp_b;
    b.tp_comm_s = std::max(b.tp_comm_s, md * (tp_f + tp_b));
    sum_t += f + bw;
    if (f + bw > max_t) max_t = f + bw, max_f = f, max_b = bw;
    if (st.boundary_elements > 0) {
      const double shard = static_cast<double>(st.boundary_elements) * u * act / tp;
      p2p += 2.0 * m_timer->p2p_s(ic, cut_crosses_nodes ? ic.devices_per_node : 1, shard, cut_crosses_nodes);
    }
    // Gradients over the dp group: buckets in the order backward produces them.
    double comm_end = 0, comm = 0;
    if (layout.dp > 1)
      for (const auto& [ready_s, bytes] : p.buckets) {
        const double ar = m_timer->group_allreduce_s(ic, layout.dp, layout.tp, bytes);
        const double d = layout.zero >= 2 ? ar / 2.0 : ar;
        comm_end = std::max(comm_end, ready_s) + d;
        comm += d;
      }
    const double reductions = layout.zero >= 2 ? md : 1.0;
    dp_exposed = std::max(dp_exposed, reductions * std::max(0.0, comm_end - p.backward_end_s));
    b.allreduce_s = std::max(b.allreduce_s, reductions * comm);
    double gather = 0;
    if (layout.zero >= 1 && layout.dp > 1) {
      const double params_bytes = static_cast<double>(st.step.params) * static_cast<double>(m_tensor_bytes.weights);
      const double ag = m_timer->group_allreduce_s(ic, layout.dp, layout.tp, params_bytes) / 2.0;
      if (layout.zero <= 2) {
        gather = ag;
      } else {
        const double first = st.step.params > 0 ? ag * static_cast<double>(st.largest_layer_params) /
                                                      static_cast<double>(st.step.params)
                                                : 0.0;
        gather = md * (first + std::max(0.0, ag - p.forward_s) + std::max(0.0, ag - p.backward_s));
      }
    }
    zero_gather = std::max(zero_gather, gather);
    optimizer = std::max(optimizer, p.optimizer_s / (layout.zero >= 1 ? dp : 1.0));
    ActionCounts a = p.actions;
    actions.macs += md * a.macs, actions.vector_ops += md * a.vector_ops;
    actions.sram_bytes += md * a.sram_bytes, actions.dram_bytes += md * a.dram_bytes;
    res.kernels = std::max<int64_t>(res.kernels, p.kernels * m + p.optimizer_kernels);
  }
  const double pipeline = sum_t + p2p + (md - 1.0) * max_t;
  b.forward_s = md * max_f, b.backward_s = md * max_b;
  b.pipeline_bubble_s = pp > 1 ? sum_t - max_t : 0.0;
  b.p2p_s = p2p;
  b.allreduce_exposed_s = dp_exposed + zero_gather;
  b.optimizer_s = optimizer;
  const RuntimeSpec& rt = m_hw.runtime;
  b.host_s = rt.step_overhead_s + (rt.launch_batching ? rt.kernel_launch_s : 0.0);
  const double copy_s = rt.host_link_bytes_per_s > 0
                            ? static_cast<double>(replica) * prof.front().input_bytes_per_sample / rt.host_link_bytes_per_s
                            : 0.0;
  b.input_s = copy_s;
  b.t_update_s = pipeline + b.allreduce_exposed_s + b.optimizer_s + b.host_s + copy_s;
  const double pps = static_cast<double>(pp);
  actions.macs /= pps, actions.vector_ops /= pps, actions.sram_bytes /= pps, actions.dram_bytes /= pps;
  res.actions = actions;
  res.energy_j = update_energy_j(m_hw.energy, actions, layout.chips());
  return r;
}

}  // namespace kp
