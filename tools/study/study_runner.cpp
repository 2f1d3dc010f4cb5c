#include "tools/study/study_runner.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/config_error.h"
#include "tools/study/curve_ranks.h"
#include "tools/study/design_eval.h"
#include "tools/study/progress.h"
#include "tools/study/result_codec.h"
#include "tools/study/study_journal.h"
#include "tools/study/study_journal_check.h"
#include "tools/study/study_select.h"

namespace kp {
namespace {

// FNV-1a over the hardware and workload files: a resumed journal must come from the same inputs.
std::string inputs_fingerprint(const StudySpec& spec) {
  uint64_t h = 1469598103934665603ull;
  std::vector<std::string> files = spec.hardware;
  files.insert(files.end(), spec.workloads.begin(), spec.workloads.end());
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    for (unsigned char c : f + '\0' + ss.str()) h = (h ^ c) * 1099511628211ull;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void make_dirs(const std::string& dir) {
  for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
    const std::string prefix = pos == std::string::npos ? dir : dir.substr(0, pos);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      throw ConfigError("--out " + dir, "cannot create folder " + prefix);
    if (pos == std::string::npos) break;
  }
}

// Finished records handed from the worker threads to the main thread (which alone journals,
// talks MPI and draws progress).
class Outbox {
 public:
  void push(std::string record, bool error) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_items.emplace_back(std::move(record), error);
    m_cv.notify_one();
  }
  void worker_done() {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_done;
    m_cv.notify_one();
  }
  // Waits up to `wait` for records; returns them (and whether all `workers` have finished).
  std::deque<std::pair<std::string, bool>> take(std::chrono::milliseconds wait, int workers, bool& all_done) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait_for(lock, wait, [&] { return !m_items.empty() || m_done == workers; });
    std::deque<std::pair<std::string, bool>> out;
    out.swap(m_items);
    all_done = m_done == workers && out.empty();
    return out;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::pair<std::string, bool>> m_items;
  int m_done = 0;
};

// Evaluates `todo` on `jobs` threads (one for SystemC: its workers are forked and a fork
// must not happen while other threads hold locks); errors travel as records.
std::vector<std::thread> start_workers(const DesignEvaluator& eval, const std::vector<size_t>& todo, int jobs,
                                       std::atomic<size_t>& next, Outbox& outbox) {
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t) {
    threads.emplace_back([&] {
      for (size_t k = next++; k < todo.size(); k = next++) {
        try {
          outbox.push(encode_design(eval.evaluate(todo[k])), false);
        } catch (const ConfigError& e) {
          outbox.push(e.what(), true);
          next = todo.size();
        } catch (const std::exception& e) {
          outbox.push(std::string("internal error: ") + e.what(), true);
          next = todo.size();
        }
      }
      outbox.worker_done();
    });
  }
  return threads;
}

// The k best designs of each workload re-simulated in SystemC, all in one forked pool.
void verify_top(const DesignEvaluator& eval, StudyResult& r, StudyJournal* journal) {
  if (r.spec.verify_top <= 0) return;
  std::vector<SystemResult*> todo;
  std::vector<DesignEvaluator::PointRef> points;
  for (SystemResult& s : r.systems) {
    if (s.rank < 1 || s.rank > r.spec.verify_top || s.verify.done) continue;
    todo.push_back(&s);
    points.push_back({s.index, s.chosen.batch, s.chosen.learners});
  }
  if (todo.empty()) return;
  const std::vector<TimePoint> sc = eval.evaluate_systemc(points);
  for (size_t i = 0; i < todo.size(); ++i) {
    SystemResult& s = *todo[i];
    VerifyResult v;
    v.systemc = sc[i];
    v.t_update_rel_diff = (v.systemc.t_update_s - s.chosen.t_update_s) / s.chosen.t_update_s;
    v.done = true;
    // Through the journal's encoding, so a resumed run reads back exactly these numbers.
    const std::string payload = encode_verify(s.index, v);
    if (journal) journal->append('V', payload);
    size_t index = 0;
    s.verify = decode_verify(payload, index);
  }
}

}  // namespace

std::string journal_path(const std::string& dir) { return dir + "/study.journal"; }

StudyResult run_study(const StudySpec& spec, std::FILE* progress) {
  RunOptions o;
  o.progress = progress;
  return run_study(spec, o);
}

StudyResult run_study(const StudySpec& spec, const RunOptions& options) {
  Transport single;
  Transport& net = options.transport ? *options.transport : single;
  const bool root = net.rank() == 0;
  StudyResult out;
  out.spec = spec;
  // Under mpirun, a stale measured step curve is measured by all ranks before the loader needs it.
  measure_stale_curve_caches(net, spec.workloads, std::max(1, options.jobs), std::cerr);
  const DesignEvaluator eval(out.spec, options.jobs);
  out.workloads = eval.workloads();
  const std::string header = inputs_fingerprint(spec) + " " + encode_header(spec, out.workloads);

  std::unique_ptr<StudyJournal> journal;
  // index -> the design decoded from its D payload (once: decoding was ~6% of a 10^4-design study)
  std::map<size_t, SystemResult> finished;
  std::map<size_t, std::string> verified;  // index -> V payload
  if (root && !options.out_dir.empty()) {
    make_dirs(options.out_dir);
    journal = std::make_unique<StudyJournal>(journal_path(options.out_dir), header, options.resume);
    if (!journal->resumed().header.empty()) check_study_journal(journal->resumed(), journal_path(options.out_dir));
    for (const std::string& d : journal->resumed().designs) {
      SystemResult s = decode_design(d);
      finished[s.index] = std::move(s);
    }
    for (const std::string& v : journal->resumed().verifies) {
      size_t index = 0;
      (void)decode_verify(v, index);
      verified[index] = v;
    }
  }
  std::vector<size_t> done_list;
  for (const auto& kv : finished) done_list.push_back(kv.first);
  done_list = net.broadcast(done_list);
  std::vector<bool> done(eval.count(), false);
  for (size_t i : done_list) done.at(i) = true;
  // Ranks take every size-th of the points still to do (deterministic; costs mix evenly).
  std::vector<size_t> todo;
  for (size_t i = 0, k = 0; i < eval.count(); ++i)
    if (!done[i] && k++ % static_cast<size_t>(net.size()) == static_cast<size_t>(net.rank())) todo.push_back(i);

  // SystemC workers are forked: that happens on this (the only) thread, never beside others.
  const bool inline_eval = spec.fidelity == "systemc";
  const int jobs = inline_eval ? 1 : std::max(1, options.jobs);
  Progress bar(root ? options.progress : nullptr, "design points", eval.count(), finished.size());
  Outbox outbox;
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  if (!inline_eval) workers = start_workers(eval, todo, jobs, next, outbox);
  std::string error;
  int ranks_running = net.size() - 1;
  bool local_done = false, inline_finished = false;
  size_t sent = 0, evaluated_here = 0;
  std::string per_rank;  // "rank: points" of every rank, for the log
  auto accept = [&](const std::string& payload, bool mine) {
    evaluated_here += mine;
    if (journal) journal->append('D', payload);
    SystemResult s = decode_design(payload);
    finished[s.index] = std::move(s);
    bar.tick();
  };
  while (!local_done || (root && ranks_running > 0)) {
    if (inline_eval && !inline_finished) {
      if (next < todo.size()) {
        try {
          outbox.push(encode_design(eval.evaluate(todo[next++])), false);
        } catch (const std::exception& e) {
          outbox.push(e.what(), true);
          next = todo.size();
        }
      }
      if (next >= todo.size()) {
        inline_finished = true;
        outbox.worker_done();
      }
    }
    bool all = false;
    for (auto& item : outbox.take(std::chrono::milliseconds(inline_eval ? 0 : 2), jobs, all)) {
      if (item.second) {
        if (!error.empty()) continue;  // the first error stops the run; one message per rank
        error = item.first;
        if (!root) net.send_error(item.first);
      } else if (root) {
        accept(item.first, true);
      } else {
        net.send_record(item.first);
        ++sent;
      }
    }
    if (all && !local_done) {
      local_done = true;
      if (!root && error.empty()) net.send_done(std::to_string(net.rank()) + " " + std::to_string(sent));
    }
    if (!root) continue;
    std::string msg;
    for (Transport::Message m; (m = net.poll(msg)) != Transport::Message::None;) {
      if (m == Transport::Message::Record) {
        accept(msg, false);
      } else if (m == Transport::Message::Done) {
        --ranks_running;
        per_rank += ", rank " + msg.substr(0, msg.find(' ')) + ": " + msg.substr(msg.find(' ') + 1);
      }
      else if (m == Transport::Message::Error) {
        if (error.empty()) error = msg;
        --ranks_running;
      }
    }
  }
  for (std::thread& t : workers) t.join();
  net.finish();  // no MPI from here on: the verification forks SystemC workers
  if (!error.empty()) {
    if (journal) journal->sync();
    throw ConfigError(spec.source_file, error);
  }
  bar.finish();
  if (!root) return StudyResult();
  if (net.size() > 1 && options.progress)
    std::fprintf(options.progress, "design points evaluated: rank 0: %zu%s\n", evaluated_here, per_rank.c_str());
  if (finished.size() != eval.count()) std::abort();  // an internal bug: a point was lost
  for (auto& kv : finished) out.systems.push_back(std::move(kv.second));
  for (const auto& kv : verified) {
    size_t index = 0;
    out.systems.at(kv.first).verify = decode_verify(kv.second, index);
  }
  rank_designs(out);
  verify_top(eval, out, journal.get());
  if (journal) journal->sync();
  return out;
}

StudyResult load_study_result(const std::string& dir) {
  const std::string path = journal_path(dir);
  const StudyJournalContents c = read_study_journal(path);
  check_study_journal(c, path);
  StudyResult out;
  const size_t space = c.header.find(' ');
  decode_header(c.header.substr(space + 1), out.spec, out.workloads);
  std::map<size_t, std::string> designs;
  for (const std::string& d : c.designs) designs[decode_design(d).index] = d;
  if (designs.size() != design_count(out.spec))
    throw ConfigError(path, "the run has not finished (" + std::to_string(designs.size()) + " of " +
                                std::to_string(design_count(out.spec)) +
                                " design points): finish it with kneepoint study STUDY.yaml --out " + dir +
                                " --resume");
  for (const auto& kv : designs) out.systems.push_back(decode_design(kv.second));
  for (const std::string& v : c.verifies) {
    size_t index = 0;
    const VerifyResult r = decode_verify(v, index);
    out.systems.at(index).verify = r;
  }
  rank_designs(out);
  for (const SystemResult& s : out.systems)
    if (s.rank >= 1 && s.rank <= out.spec.verify_top && !s.verify.done)
      throw ConfigError(path, "the run stopped during the SystemC verification: finish it with kneepoint study "
                              "STUDY.yaml --out " + dir + " --resume");
  return out;
}

}  // namespace kp
