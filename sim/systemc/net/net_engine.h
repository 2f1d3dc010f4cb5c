#pragma once
// SystemC model of the interconnect: transfers of a CollectiveDag move over a NetTopology's links.
// Loosely timed, one kernel event per transfer per hop (a tlm_utils::peq_with_get drives one
// SC_METHOD); no per-event allocation beyond the kernel's queue node.
// Link model (per direction): a link serialises the transfers that reach it, in arrival order, each
// for bytes / bandwidth; the head of a transfer reaches the next hop `latency` after it started on
// this one (cut-through), and its tail cannot leave a hop before it arrived from the previous one:
//   start_h = max(head_h, free_h); end_h = max(start_h + bytes/B_h, end_{h-1} + alpha_{h-1});
//   free_h = end_h; head_{h+1} = start_h + alpha_h; arrival = end_last + alpha_last.
// One hop without contention therefore costs alpha + bytes/B, the closed forms' term; two transfers
// on one link at once take turns (contention). Times are kept in double seconds from the start of
// the run; the kernel's sc_time (1 ps) only orders the events.
#include <systemc>
#include <tlm_utils/peq_with_get.h>

#include <cstdint>
#include <vector>

#include "sim/systemc/net/collective_dag.h"
#include "sim/systemc/net/net_topology.h"

namespace kp {

// One transfer's busy interval on one link (tracing only): link id, collective step, seconds.
struct NetSpan {
  int32_t link = 0, step = 0;
  double start_s = 0, end_s = 0;
};

struct NetRunStats {
  double seconds = 0;     // first transfer start to last arrival
  int64_t transfers = 0;  // simulated (representatives only when symmetric)
  int64_t events = 0;     // kernel events (hops)
  double busiest_link_s = 0;  // busy time of the most loaded simulated link
};

class NetEngine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(NetEngine);
  explicit NetEngine(sc_core::sc_module_name name);

  // Runs `dag` on `topo` from the current simulation time; call from an SC_THREAD (it waits until
  // the last transfer arrived). `symmetric`: links are merged into their orbits (collective_dag.h).
  // `spans`, when given, receives every hop's busy interval (run without symmetry to see every link).
  NetRunStats run(const NetTopology& topo, const CollectiveDag& dag, bool symmetric,
                  std::vector<NetSpan>* spans = nullptr);

 private:
  struct Flight {
    int32_t transfer = 0, node = 0;
    double head_s = 0, tail_s = 0;
  };
  void on_hop();
  void hop(Flight& f);
  void arrived(int32_t transfer, double t_s);
  void launch(int32_t transfer, double t_s);
  void schedule(Flight& f, double t_s);
  double now_s() const;

  tlm_utils::peq_with_get<Flight> m_peq;
  sc_core::sc_event m_done;
  const NetTopology* m_topo = nullptr;
  const CollectiveDag* m_dag = nullptr;
  bool m_symmetric = false;
  std::vector<NetSpan>* m_spans = nullptr;
  sc_core::sc_time m_t0;
  std::vector<Flight> m_flights;
  std::vector<int32_t> m_unmet;
  std::vector<double> m_ready_s, m_free_s, m_busy_s;
  int64_t m_left = 0;
  NetRunStats m_stats;
};

}  // namespace kp
