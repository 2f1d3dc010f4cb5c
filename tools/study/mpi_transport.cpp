// The MPI transport (built with KP_WITH_MPI). Ranks other than 0 send each finished design record
// to rank 0 as it completes (tag kRecord), then kDone, or kError with the message; rank 0 polls
// with MPI_Iprobe from the runner's main thread (MPI_THREAD_FUNNELED: the worker threads never
// call MPI).
//
// Forking: the SystemC verification forks its workers only after finish() (MPI_Finalize), on
// rank 0. With `fidelity: systemc` every rank forks SystemC workers while MPI is initialised;
// the children only elaborate SystemC, write to a pipe and _exit, never touching MPI. Open MPI
// supports that (its FAQ: fork() is unsafe only for children that use MPI, or with OpenFabrics
// registered memory, which the shared-memory and TCP transports of one machine do not use).
#include <mpi.h>

#include <time.h>

#include <cstdlib>
#include <stdexcept>

#include "tools/study/transport.h"

namespace kp {
namespace {

enum Tag { kRecord = 1, kDone = 2, kError = 3 };

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

class MpiTransport : public Transport {
 public:
  MpiTransport() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("MPI does not provide MPI_THREAD_FUNNELED");
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
  }
  ~MpiTransport() override {
    // A rank leaving by an exception (bad input) must not leave the others waiting forever.
    if (!m_finished) MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank() const override { return m_rank; }
  bool active() const override { return !m_finished; }
  int size() const override { return m_size; }

  std::vector<size_t> broadcast(const std::vector<size_t>& values) override {
    unsigned long long n = values.size();
    check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::vector<unsigned long long> buf(values.begin(), values.end());
    buf.resize(n);
    if (n) check(MPI_Bcast(buf.data(), static_cast<int>(n), MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return std::vector<size_t>(buf.begin(), buf.end());
  }

  std::string broadcast_text(const std::string& text) override {
    unsigned long long n = text.size();
    MPI_Request r;
    check(MPI_Ibcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD, &r), "MPI_Ibcast");
    wait(r);
    std::string out = m_rank == 0 ? text : std::string(n, '\0');
    if (n) {
      check(MPI_Ibcast(&out[0], static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD, &r), "MPI_Ibcast");
      wait(r);
    }
    return out;
  }

  void wait_all() override {
    MPI_Request r;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &r), "MPI_Ibarrier");
    wait(r);
  }

  void send_record(const std::string& s) override { send(s, kRecord); }
  void send_error(const std::string& s) override { send(s, kError); }
  void send_done(const std::string& s) override { send(s, kDone); }

  Message poll(std::string& out) override {
    int flag = 0;
    MPI_Status st;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
    if (!flag) return Message::None;
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    out.assign(static_cast<size_t>(count), '\0');
    check(MPI_Recv(count ? &out[0] : nullptr, count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    return st.MPI_TAG == kRecord ? Message::Record : st.MPI_TAG == kDone ? Message::Done : Message::Error;
  }

  void finish() override {
    if (m_finished) return;
    wait_all();
    MPI_Finalize();
    m_finished = true;
  }

 private:
  // Tests the request every millisecond instead of busy-polling in MPI_Wait.
  static void wait(MPI_Request& r) {
    for (int done = 0;;) {
      check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) return;
      const timespec ms{0, 1000000};
      nanosleep(&ms, nullptr);
    }
  }

  void send(const std::string& s, int tag) {
    check(MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, 0, tag, MPI_COMM_WORLD), "MPI_Send");
  }

  int m_rank = 0, m_size = 1;
  bool m_finished = false;
};

}  // namespace

std::unique_ptr<Transport> make_transport() {
  // Only a process started by mpirun with several ranks initialises MPI; a plain run stays
  // independent of it (no singleton start-up, nothing to fork around).
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || std::atoi(size) < 2) return std::make_unique<Transport>();
  return std::make_unique<MpiTransport>();
}

}  // namespace kp
