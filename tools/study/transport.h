#pragma once
// How design points are shared between processes. Contract: every process runs the same study;
// rank 0 owns the journal and the outputs. The local transport (one process) is the identity;
// the MPI transport (mpi_transport.cpp, built with KP_WITH_MPI) carries records to rank 0.
// All calls come from one thread (the runner's main thread: MPI_THREAD_FUNNELED).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace kp {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // Rank 0's `values` on every rank.
  virtual std::vector<size_t> broadcast(const std::vector<size_t>& values) { return values; }
  // Rank 0's `text` on every rank. Waiting ranks sleep rather than spin (they would take a core
  // from the ranks still training: Open MPI's blocking calls busy-poll).
  virtual std::string broadcast_text(const std::string& text) { return text; }
  // Returns once every rank has called it; sleeps while waiting, as broadcast_text().
  virtual void wait_all() {}
  // Rank > 0: a finished record for rank 0; an error (rank 0 reports it and the run stops); done.
  virtual void send_record(const std::string&) {}
  virtual void send_error(const std::string&) {}
  virtual void send_done(const std::string&) {}  // payload: "<rank> <records sent>"
  enum class Message { None, Record, Error, Done };
  // Rank 0: the next message from another rank, without waiting (None if nothing arrived).
  virtual Message poll(std::string&) { return Message::None; }
  // Ends the use of MPI (MPI_Finalize): after this the process may fork (SystemC workers).
  virtual void finish() {}
  // True between start-up and finish() of a multi-process run (an error must then stop all ranks).
  virtual bool active() const { return false; }
};

// The MPI transport when this process was started by mpirun with more than one rank (and
// kneepoint was built with MPI), else the local one.
std::unique_ptr<Transport> make_transport();

}  // namespace kp
