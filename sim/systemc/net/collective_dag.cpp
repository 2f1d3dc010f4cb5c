#include "sim/systemc/net/collective_dag.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace kp {
namespace {

enum class Group { All, X, Y, InNode, Across, Xor };

struct Step {
  Group group = Group::All;
  int64_t mask = 0;   // Xor partner mask
  double bytes = 0;   // per chunk and ring direction
  bool barrier = false;
};

struct Shape {
  int64_t p = 1, g = 1, x = 1, y = 1;
  int64_t stride = 1;  // groups of learners with the same i mod stride (see build_collective_dag)
};

// The learner `off` places along `group` from i (off = +1: whom i sends to; -1: who sends to i).
int64_t peer(const Shape& s, int64_t i, const Step& st, int64_t off) {
  switch (st.group) {
    case Group::All: {
      const int64_t n = s.p / s.stride;
      return (((i / s.stride + off) % n + n) % n) * s.stride + i % s.stride;
    }
    case Group::X: return (i / s.x) * s.x + ((i % s.x + off) % s.x + s.x) % s.x;
    case Group::Y: return (((i / s.x + off) % s.y + s.y) % s.y) * s.x + i % s.x;
    case Group::InNode: {
      const int64_t slot = i % s.g, members = s.g / s.stride;
      const int64_t j = ((slot / s.stride + off) % members + members) % members;
      return (i / s.g) * s.g + j * s.stride + slot % s.stride;
    }
    case Group::Across: {
      const int64_t nodes = s.p / s.g;
      return (((i / s.g + off) % nodes + nodes) % nodes) * s.g + i % s.g;
    }
    case Group::Xor: return i ^ st.mask;
  }
  return i;
}

void add_ring_phase(std::vector<Step>& steps, Group g, int64_t count, double bytes) {
  for (int64_t k = 0; k < count; ++k) steps.push_back(Step{g, 0, bytes, k == 0 && !steps.empty()});
}

void to_csr(CollectiveDag& dag, std::vector<std::pair<int32_t, int32_t>>& edges) {
  const size_t n = dag.transfers.size();
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  dag.deps.assign(n, 0);
  dag.next_begin.assign(n + 1, 0);
  for (const auto& [from, to] : edges) ++dag.deps[static_cast<size_t>(to)], ++dag.next_begin[static_cast<size_t>(from) + 1];
  for (size_t t = 0; t < n; ++t) dag.next_begin[t + 1] += dag.next_begin[t];
  dag.next.resize(edges.size());
  std::vector<int64_t> fill(dag.next_begin.begin(), dag.next_begin.end() - 1);
  for (const auto& [from, to] : edges) dag.next[static_cast<size_t>(fill[static_cast<size_t>(from)]++)] = to;
}

CollectiveDag tree_dag(int64_t p, double bytes, int64_t chunks) {
  CollectiveDag dag;
  dag.represented = p;
  std::vector<int32_t> index(static_cast<size_t>(2 * chunks * p * 2), -1);
  auto slot = [&](int t, int64_t c, int64_t rank, int up) -> int32_t& {
    return index[static_cast<size_t>(((t * chunks + c) * p + rank) * 2 + up)];
  };
  auto rank_at = [&](int t, int64_t pos) { return t == 0 ? pos : p - 1 - pos; };
  const double s = bytes / 2.0 / static_cast<double>(chunks);
  for (int t = 0; t < 2; ++t)
    for (int64_t c = 0; c < chunks; ++c)
      for (int64_t pos = 1; pos < p; ++pos) {
        const auto r = static_cast<int32_t>(rank_at(t, pos)), par = static_cast<int32_t>(rank_at(t, (pos - 1) / 2));
        slot(t, c, r, 1) = static_cast<int32_t>(dag.transfers.size());
        dag.transfers.push_back(NetTransfer{r, par, 0, s, 2 * t});
        slot(t, c, r, 0) = static_cast<int32_t>(dag.transfers.size());
        dag.transfers.push_back(NetTransfer{par, r, 0, s, 2 * t + 1});
      }
  std::vector<std::pair<int32_t, int32_t>> edges;
  for (int t = 0; t < 2; ++t)
    for (int64_t c = 0; c < chunks; ++c)
      for (int64_t pos = 1; pos < p; ++pos) {
        const int64_t r = rank_at(t, pos), ppos = (pos - 1) / 2;
        for (int64_t ch = 2 * pos + 1; ch <= 2 * pos + 2 && ch < p; ++ch)  // reduce: children first
          edges.emplace_back(slot(t, c, rank_at(t, ch), 1), slot(t, c, r, 1));
        if (ppos > 0) {  // broadcast: parent's copy first
          edges.emplace_back(slot(t, c, rank_at(t, ppos), 0), slot(t, c, r, 0));
        } else {         // the root sends once every child's reduction has arrived
          for (int64_t ch = 1; ch <= 2 && ch < p; ++ch) edges.emplace_back(slot(t, c, rank_at(t, ch), 1), slot(t, c, r, 0));
        }
      }
  to_csr(dag, edges);
  return dag;
}

}  // namespace

CollectiveDag point_to_point_dag(int64_t senders, double bytes) {
  CollectiveDag dag;
  dag.represented = 2 * senders;
  for (int64_t i = 0; i < senders; ++i)
    dag.transfers.push_back(NetTransfer{static_cast<int32_t>(i), static_cast<int32_t>(i + senders), 0, bytes, 0});
  std::vector<std::pair<int32_t, int32_t>> edges;
  to_csr(dag, edges);
  return dag;
}

bool symmetric_allowed(const InterconnectSpec& ic) {
  switch (ic.topology) {
    case Topology::Ring: return ic.collective == Collective::Ring;
    case Topology::Torus2d: return ic.collective == Collective::Torus2d;
    case Topology::Switch: return ic.collective == Collective::Ring || ic.collective == Collective::HalvingDoubling;
    case Topology::Hierarchical: return ic.collective == Collective::Hierarchical;
  }
  return false;
}

CollectiveDag build_collective_dag(const InterconnectSpec& ic, const NetTopology& topo, double bytes, bool symmetric,
                                   int64_t stride) {
  const int64_t p = topo.learners();
  if (stride < 1 || p % stride != 0 || (topo.kind() == Topology::Hierarchical && topo.devices_per_node() % stride != 0))
    throw std::invalid_argument("collective groups: the stride must divide the learners and a node's devices");
  if (stride > 1 && ic.collective != Collective::Ring && ic.collective != Collective::Hierarchical)
    throw std::invalid_argument("collective groups: ring and hierarchical collectives only");
  if (p / stride <= 1) return CollectiveDag{{}, {}, {0}, {}, p};
  int64_t chunks = ic.chunks;
  if (ic.collective == Collective::DoubleBinaryTree) return tree_dag(p, bytes, chunks);
  const bool ring_like = topo.kind() == Topology::Ring || topo.kind() == Topology::Torus2d;
  int64_t dirs = ring_like ? ic.links_per_chip : 1;
  Shape sh{p, topo.devices_per_node(), topo.torus().x, topo.torus().y, stride};
  std::vector<Step> steps;
  const double pd = static_cast<double>(p / stride);
  switch (ic.collective) {
    case Collective::Ring: add_ring_phase(steps, Group::All, 2 * (p / stride - 1), bytes / pd); break;
    case Collective::HalvingDoubling: {
      chunks = 1, dirs = 1;
      for (int64_t m = p / 2, b = 2; m >= 1; m /= 2, b *= 2) steps.push_back(Step{Group::Xor, m, bytes / b, false});
      for (int64_t m = 1, b = p; m < p; m *= 2, b /= 2) steps.push_back(Step{Group::Xor, m, bytes / b, false});
      break;
    }
    case Collective::Torus2d: {
      sh.x = topo.torus().x, sh.y = topo.torus().y;
      const double xd = static_cast<double>(sh.x);
      add_ring_phase(steps, Group::X, sh.x - 1, bytes / xd);
      add_ring_phase(steps, Group::Y, 2 * (sh.y - 1), bytes / (xd * static_cast<double>(sh.y)));
      add_ring_phase(steps, Group::X, sh.x - 1, bytes / xd);
      break;
    }
    case Collective::Hierarchical: {
      const int64_t members = sh.g / stride;
      const double gd = static_cast<double>(members);
      add_ring_phase(steps, Group::InNode, members - 1, bytes / gd);
      add_ring_phase(steps, Group::Across, 2 * (p / sh.g - 1), bytes / pd);
      add_ring_phase(steps, Group::InNode, members - 1, bytes / gd);
      break;
    }
    case Collective::DoubleBinaryTree: break;
  }
  if (ic.collective == Collective::Torus2d && topo.kind() != Topology::Torus2d)
    throw std::invalid_argument("the torus2d collective needs a torus2d topology");
  const int64_t reps = symmetric && symmetric_allowed(ic) ? (ic.topology == Topology::Hierarchical ? sh.g : 1) : p;
  const auto n_steps = static_cast<int64_t>(steps.size());
  auto idx = [&](int64_t r, int64_t s, int64_t c, int64_t d) {
    return static_cast<int32_t>(((r * n_steps + s) * chunks + c) * dirs + d);
  };
  CollectiveDag dag;
  dag.represented = reps;
  dag.transfers.reserve(static_cast<size_t>(reps * n_steps * chunks * dirs));
  std::vector<std::pair<int32_t, int32_t>> edges;
  const double split = static_cast<double>(chunks * dirs);
  for (int64_t r = 0; r < reps; ++r)
    for (int64_t s = 0; s < n_steps; ++s)
      for (int64_t c = 0; c < chunks; ++c)
        for (int64_t d = 0; d < dirs; ++d) {
          const int64_t off = d == 0 ? 1 : -1;
          const int32_t me = idx(r, s, c, d);
          dag.transfers.push_back(NetTransfer{static_cast<int32_t>(r), static_cast<int32_t>(peer(sh, r, steps[static_cast<size_t>(s)], off)),
                                              static_cast<int32_t>(d), steps[static_cast<size_t>(s)].bytes / split,
                                              static_cast<int32_t>(s)});
          if (s == 0) continue;
          const Step& prev = steps[static_cast<size_t>(s - 1)];
          const bool all = steps[static_cast<size_t>(s)].barrier;  // a new phase waits for the whole last one
          for (int64_t c2 = all ? 0 : c; c2 < (all ? chunks : c + 1); ++c2)
            for (int64_t d2 = all ? 0 : d; d2 < (all ? dirs : d + 1); ++d2) {
              const int64_t from = peer(sh, r, prev, d2 == 0 ? -1 : 1) % reps;  // representative of r's sender
              edges.emplace_back(idx(r, s - 1, c2, d2), me);
              edges.emplace_back(idx(from, s - 1, c2, d2), me);
            }
        }
  to_csr(dag, edges);
  return dag;
}

}  // namespace kp
