#include "tools/study/study_journal_check.h"

#include <new>
#include <stdexcept>

#include "core/config_error.h"
#include "tools/study/design_space.h"
#include "tools/study/result_codec.h"

namespace kp {
namespace {

[[noreturn]] void fail(const std::string& path, size_t line, std::string what) {
  const std::string prefix = "journal record: ";  // the codec's; said once here
  if (what.compare(0, prefix.size(), prefix) == 0) what.erase(0, prefix.size());
  throw ConfigError({{path, static_cast<int>(line), 1, "", "corrupt journal record: " + what}});
}

// What design_count() and design_point() rely on: something to enumerate, and zip axes of equal
// length (else an index would run past an axis).
void check_spec_shape(const StudySpec& spec) {
  if (spec.workloads.empty() || spec.hardware.empty())
    throw std::runtime_error("the header names no workload or no hardware");
  if (spec.batches.empty() || spec.learners.empty())
    throw std::runtime_error("the header has no batch sizes or no learner counts");
  for (int64_t v : spec.batches)
    if (v < 1) throw std::runtime_error("batch size " + std::to_string(v) + " in the header");
  for (int64_t v : spec.learners)
    if (v < 1) throw std::runtime_error("learner count " + std::to_string(v) + " in the header");
  for (const SweepGroup& g : spec.sweep)
    for (const SweepAxis& a : g.axes)
      if (a.values.empty() || (g.zip && a.values.size() != g.axes.front().values.size()))
        throw std::runtime_error("the sweep axis " + a.key + " has no values or a zip length that differs");
}

}  // namespace

void check_study_journal(const StudyJournalContents& c, const std::string& path) {
  StudySpec spec;
  std::vector<WorkloadResult> workloads;
  size_t designs = 0;
  try {
    const size_t space = c.header.find(' ');  // "<inputs fingerprint> <encoded header>"
    if (space == std::string::npos) throw std::runtime_error("the header lacks its fingerprint");
    decode_header(c.header.substr(space + 1), spec, workloads);
    if (workloads.size() != spec.workloads.size())
      throw std::runtime_error("the header has " + std::to_string(workloads.size()) + " workload results for " +
                               std::to_string(spec.workloads.size()) + " workloads");
    check_spec_shape(spec);
    designs = design_count(spec);
  } catch (const std::runtime_error& e) {
    fail(path, 1, e.what());
  } catch (const std::bad_alloc&) {
    fail(path, 1, "the header's sizes are implausible");
  }
  for (size_t k = 0; k < c.designs.size(); ++k) {
    const size_t line = k < c.design_lines.size() ? c.design_lines[k] : 0;
    try {
      const SystemResult s = decode_design(c.designs[k]);
      if (s.index >= designs)
        fail(path, line, "design index " + std::to_string(s.index) + " is outside the study's " +
                             std::to_string(designs) + " design points");
      if (s.workload >= workloads.size())
        fail(path, line, "workload index " + std::to_string(s.workload) + " is outside the study's " +
                             std::to_string(workloads.size()) + " workloads");
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const ConfigError*>(&e)) throw;
      fail(path, line, e.what());
    }
  }
  for (size_t k = 0; k < c.verifies.size(); ++k) {
    const size_t line = k < c.verify_lines.size() ? c.verify_lines[k] : 0;
    size_t index = 0;
    try {
      (void)decode_verify(c.verifies[k], index);
    } catch (const std::runtime_error& e) {
      fail(path, line, e.what());
    }
    if (index >= designs)
      fail(path, line, "verified design " + std::to_string(index) + " is outside the study's " +
                           std::to_string(designs) + " design points");
  }
}

}  // namespace kp
