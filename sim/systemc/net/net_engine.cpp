#include "sim/systemc/net/net_engine.h"

#include <algorithm>
#include <limits>

namespace kp {

NetEngine::NetEngine(sc_core::sc_module_name name) : sc_core::sc_module(name), m_peq("hops") {
  SC_METHOD(on_hop);
  sensitive << m_peq.get_event();
  dont_initialize();
}

double NetEngine::now_s() const { return (sc_core::sc_time_stamp() - m_t0).to_seconds(); }

void NetEngine::schedule(Flight& f, double t_s) {
  m_peq.notify(f, sc_core::sc_time(std::max(0.0, t_s - now_s()), sc_core::SC_SEC));
}

void NetEngine::launch(int32_t t, double t_s) {
  Flight& f = m_flights[static_cast<size_t>(t)];
  f.transfer = t;
  f.node = m_dag->transfers[static_cast<size_t>(t)].src;
  f.head_s = t_s;
  f.tail_s = -std::numeric_limits<double>::infinity();
  schedule(f, t_s);
}

void NetEngine::arrived(int32_t t, double t_s) {
  m_stats.seconds = std::max(m_stats.seconds, t_s);
  const auto b = static_cast<size_t>(m_dag->next_begin[static_cast<size_t>(t)]);
  const auto e = static_cast<size_t>(m_dag->next_begin[static_cast<size_t>(t) + 1]);
  for (size_t k = b; k < e; ++k) {
    const auto n = static_cast<size_t>(m_dag->next[k]);
    m_ready_s[n] = std::max(m_ready_s[n], t_s);
    if (--m_unmet[n] == 0) launch(static_cast<int32_t>(n), m_ready_s[n]);
  }
  if (--m_left == 0) m_done.notify(sc_core::sc_time(std::max(0.0, m_stats.seconds - now_s()), sc_core::SC_SEC));
}

void NetEngine::hop(Flight& f) {
  ++m_stats.events;
  const NetTransfer& x = m_dag->transfers[static_cast<size_t>(f.transfer)];
  const int32_t id = m_topo->next_link(f.node, x.dst, x.dir);
  const NetLink& l = m_topo->link(id);
  const auto r = static_cast<size_t>(m_symmetric ? m_topo->orbit(id) : id);
  const double serial = x.bytes / l.bytes_per_s;
  const double start = std::max(f.head_s, m_free_s[r]);
  const double end = std::max(start + serial, f.tail_s);
  m_free_s[r] = end;
  m_busy_s[r] += serial;
  if (m_spans) m_spans->push_back(NetSpan{id, x.step, start, end});
  if (l.to == x.dst) {
    arrived(f.transfer, end + l.latency_s);
    return;
  }
  f.node = l.to;
  f.head_s = start + l.latency_s;
  f.tail_s = end + l.latency_s;
  schedule(f, f.head_s);
}

void NetEngine::on_hop() {
  while (Flight* f = m_peq.get_next_transaction()) hop(*f);
}

NetRunStats NetEngine::run(const NetTopology& topo, const CollectiveDag& dag, bool symmetric,
                           std::vector<NetSpan>* spans) {
  m_topo = &topo, m_dag = &dag, m_symmetric = symmetric, m_spans = spans;
  m_t0 = sc_core::sc_time_stamp();
  m_stats = NetRunStats{};
  const size_t n = dag.transfers.size();
  m_stats.transfers = static_cast<int64_t>(n);
  if (n == 0) return m_stats;
  m_flights.assign(n, Flight{});
  m_unmet.assign(dag.deps.begin(), dag.deps.end());
  m_ready_s.assign(n, 0.0);
  m_free_s.assign(static_cast<size_t>(topo.link_count()), 0.0);
  m_busy_s.assign(static_cast<size_t>(topo.link_count()), 0.0);
  m_left = static_cast<int64_t>(n);
  for (size_t t = 0; t < n; ++t)
    if (m_unmet[t] == 0) launch(static_cast<int32_t>(t), 0.0);
  sc_core::wait(m_done);
  m_stats.busiest_link_s = *std::max_element(m_busy_s.begin(), m_busy_s.end());
  return m_stats;
}

}  // namespace kp
