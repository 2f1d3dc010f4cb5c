#include "tools/study/curve_ranks.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <ostream>
#include <sstream>

#include "core/cpu_clock.h"
#include "models/step_curve/measure/curve_journal.h"

namespace kp {
namespace {

namespace fs = std::filesystem;
using Key = std::pair<int64_t, int>;  // (batch, trial)

void sleep_ms(long ms) {
  const timespec t{0, ms * 1000000};
  nanosleep(&t, nullptr);
}

std::string rank_journal(const std::string& out, int rank) {
  return rank == 0 ? out + ".journal" : out + ".journal.rank" + std::to_string(rank);
}

}  // namespace

std::vector<std::string> rank_files(const std::string& out) {
  const fs::path j(out + ".journal");
  const fs::path dir = j.parent_path().empty() ? fs::path(".") : j.parent_path();
  const std::string prefix = j.filename().string() + ".rank";
  std::vector<std::string> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0)
      files.push_back((j.parent_path() / e.path().filename()).string());
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// Reads one journal's trial lines into `merged` (a torn or unparsable line ends it, as in
// CurveJournal). Returns false when its header is not `fingerprint`'s.
bool merge_journal(const std::string& path, const std::string& fingerprint, std::map<Key, TrialRecord>& merged) {
  const CurveJournalContents c = read_journal(path, fingerprint);
  if (!c.matches) return false;
  for (const TrialRecord& r : c.records) {
    const auto [it, fresh] = merged.emplace(Key{r.batch, r.trial}, r);
    if (!fresh && !(it->second == r))
      throw CurveRanksRefused(path, "batch " + std::to_string(r.batch) + " trial " + std::to_string(r.trial) +
                                        " differs from the same trial in another journal of this measurement");
  }
  return true;
}

// Rank 0, before any trial: every journal of OUT merged into OUT.journal, the rank files removed.
// Returns the merged records; throws CurveRanksRefused.
std::map<Key, TrialRecord> merge_journals(const std::string& out, const std::string& fp, bool resume,
                                          bool restart, std::ostream& log) {
  std::vector<std::string> files = rank_files(out);
  const std::string main_journal = out + ".journal";
  std::error_code ec;
  if (fs::exists(main_journal, ec)) files.insert(files.begin(), main_journal);
  std::map<Key, TrialRecord> merged;
  for (const std::string& f : files) {
    if (fs::file_size(f, ec) == 0) continue;
    if (!resume)
      throw CurveRanksRefused(f, "a journal of an earlier measurement exists: pass --resume to continue it, "
                                 "or delete it (and any " + out + ".journal.rank*) to start over");
    if (merge_journal(f, fp, merged)) continue;
    if (!restart)
      throw CurveRanksRefused(f, "the journal was made with other settings (expected the first line "
                                 "`# kneepoint curve journal " + fp + "`)");
    log << "step curve journal " << f << " was made with other settings: starting it over\n";
  }
  if (files.empty()) return merged;
  // Written beside and renamed over OUT.journal, then the rank files go: a kill at any point
  // leaves every record in some journal.
  const std::string tmp = out + ".journal.merging";
  fs::remove(tmp, ec);
  {
    CurveJournal j(tmp, fp, false);
    for (const auto& kv : merged) j.append(kv.second);
  }
  fs::rename(tmp, main_journal, ec);
  if (ec) throw CurveRanksRefused(main_journal, "cannot replace the journal: " + ec.message());
  for (const std::string& f : files)
    if (f != main_journal) fs::remove(f, ec);
  return merged;
}

void print_trial(std::ostream& log, int rank, const TrialRecord& r) {
  log << "  rank " << rank << ": " << trial_line(r) << "\n" << std::flush;
}

}  // namespace

std::vector<std::vector<int64_t>> assign_chains(const CurveSearchSpec& s, int ranks) {
  std::vector<int64_t> chains = s.batches;
  const auto cost = [&](int64_t m) { return double(m) * double(budget_of(s, m)); };
  // Most expensive first; equal costs: the larger batch first (a total order: deterministic).
  std::sort(chains.begin(), chains.end(), [&](int64_t a, int64_t b) {
    return cost(a) != cost(b) ? cost(a) > cost(b) : a > b;
  });
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(std::max(1, ranks)));
  std::vector<double> load(out.size(), 0.0);
  for (int64_t m : chains) {
    const size_t r = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    out[r].push_back(m);
    load[r] += cost(m);
  }
  for (auto& v : out) std::sort(v.begin(), v.end(), std::greater<int64_t>());
  return out;
}

CurveMeasurement measure_curve_on_ranks(Transport& t, const ResolvedNetwork& net, const Dataset& data,
                                        const CurveSearchSpec& s, CurveRunInfo info,
                                        const std::string& out, bool resume,
                                        bool restart_other_settings, std::ostream& log) {
  const int rank = t.rank(), size = t.size();
  const std::string fp = journal_fingerprint(s);
  const std::vector<std::vector<int64_t>> chains = assign_chains(s, size);
  CurveSearchSpec mine = s;
  mine.batches = chains[static_cast<size_t>(rank)];

  // Rank 0 merges the journals and hands out their records (or the refusal) as journal lines.
  std::string handout;
  std::exception_ptr refused;
  if (rank == 0) {
    try {
      for (const auto& kv : merge_journals(out, fp, resume, restart_other_settings, log))
        handout += format_journal_line(kv.second);
      handout = "O" + handout;
    } catch (const CurveRanksRefused& e) {
      handout = "E" + std::string(e.what());
      refused = std::current_exception();
    }
  }
  handout = t.broadcast_text(handout);
  if (refused) std::rethrow_exception(refused);
  if (handout[0] == 'E') throw CurveRanksRefused(out, "refused by rank 0: " + handout.substr(1));
  if (rank > 0) {
    // This rank's journal starts with the records of its chains that earlier runs finished.
    std::istringstream lines(handout.substr(1));
    CurveJournal j(rank_journal(out, rank), fp, false);
    for (std::string line; std::getline(lines, line);) {
      TrialRecord r;
      if (parse_journal_line(line, r) && std::count(mine.batches.begin(), mine.batches.end(), r.batch)) j.append(r);
    }
  }

  std::string split = " [mpirun -np " + std::to_string(size) + ":";
  for (int r = 0; r < size; ++r)
    split += std::string(r ? ";" : "") + " rank " + std::to_string(r) + " batches " +
             (chains[size_t(r)].empty() ? "none" : join_batches(chains[size_t(r)]));
  if (size > 1) info.command += split + "]";

  // The chains of this rank, journaled in its own file (resumed: the handed-out records).
  const auto run_mine = [&](const std::function<void(const TrialRecord&)>& on_trial) {
    if (mine.batches.empty()) return std::vector<TrialRecord>();
    return measure_curve(net, data, mine, rank_journal(out, rank), true, on_trial);
  };

  if (rank > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = process_cpu_s();
    const std::vector<TrialRecord> records = run_mine([&](const TrialRecord& r) { print_trial(log, rank, r); });
    for (const TrialRecord& r : records) t.send_record(format_journal_line(r));
    char done[128];
    std::snprintf(done, sizeof done, "%d %zu %.3f %.3f", rank, records.size(), process_cpu_s() - cpu0,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    t.send_done(done);
    (void)t.broadcast_text("");  // rank 0 has written OUT
    return CurveMeasurement();
  }

  const CurveSearchFn search = [&](const std::function<void(const TrialRecord&)>& on_trial, double& other_cpu_s) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<TrialRecord> all = run_mine(on_trial);
    char line[160];
    const double own_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::snprintf(line, sizeof line, "  rank 0: %zu trials of batches %s in %.1f s\n", all.size(),
                  join_batches(mine.batches).c_str(), own_s);
    log << line;
    std::vector<TrialRecord> gathered;
    for (int running = size - 1; running > 0;) {
      std::string msg;
      const Transport::Message m = t.poll(msg);
      if (m == Transport::Message::None) {
        sleep_ms(2);
      } else if (m == Transport::Message::Record) {
        TrialRecord r;
        if (!parse_journal_line(msg.substr(0, msg.size() - 1), r))
          throw std::runtime_error("a rank sent a malformed trial record: " + msg);
        gathered.push_back(r);
      } else if (m == Transport::Message::Done) {
        int from = 0;
        size_t count = 0;
        double cpu = 0, wall = 0;
        std::sscanf(msg.c_str(), "%d %zu %lf %lf", &from, &count, &cpu, &wall);
        other_cpu_s += cpu;
        --running;
        std::snprintf(line, sizeof line, "  rank %d: %zu trials of batches %s in %.1f s\n", from, count,
                      join_batches(chains[size_t(from)]).c_str(), wall);
        log << line;
      }
    }
    {
      // Every record in the one journal (the resumed ones are there already), then no rank files.
      CurveJournal j(out + ".journal", fp, true);
      std::set<Key> have;
      for (const TrialRecord& r : j.records()) have.insert(Key{r.batch, r.trial});
      for (const TrialRecord& r : gathered)
        if (!have.count(Key{r.batch, r.trial})) j.append(r);
    }
    std::error_code ec;
    for (const std::string& f : rank_files(out)) fs::remove(f, ec);
    all.insert(all.end(), gathered.begin(), gathered.end());
    sort_records(all);
    if (all.size() != s.batches.size() * size_t(s.trials))  // an internal bug: a trial was lost
      throw std::runtime_error("gathered " + std::to_string(all.size()) + " trials, expected " +
                               std::to_string(s.batches.size() * size_t(s.trials)));
    return all;
  };
  CurveMeasurement m = measure_and_write_curve(net, data, s, info, out, true, log, search);
  (void)t.broadcast_text("written");
  return m;
}

}  // namespace kp
