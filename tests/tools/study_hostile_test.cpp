// A hostile study file: every error of the file, its base files and its sweep in one pass.
#include <gtest/gtest.h>

#include <string>

#include "core/config_doc.h"
#include "core/config_error.h"
#include "tests/scratch_dir.h"
#include "tools/study/study_spec.h"

namespace kp {
namespace {

const std::string kData = std::string(KP_SOURCE_DIR) + "/tests/data/bad_inputs/";

std::vector<std::string> errors_of(const std::string& file) {
  std::vector<std::string> out;
  try {
    (void)parse_study(ConfigDoc::load(kData + file));
  } catch (const ConfigError& e) {
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.key + ": " + d.message);
  }
  return out;
}

TEST(StudyHostile, ReportsFileAndSweepErrorsTogether) {
  const auto e = errors_of("study_all_errors_at_once.yaml");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], "knee_threshold: expected a number in [0, 1], got \"5\"");
  EXPECT_EQ(e[1].rfind("sweep.chip.clock: value \"2 Ghz\": unknown unit \"Ghz\"", 0), 0u) << e[1];
}

TEST(StudyHostile, LearnerCountsNoSystemOffersOrNoBatchFeeds) {
  EXPECT_EQ(errors_of("study_learners_over_max.yaml"),
            std::vector<std::string>{"learners: 64 learners: more than any system of the study offers (the largest "
                                     "interconnect.max_learners is 16)"});
  EXPECT_EQ(errors_of("study_batch_below_learners.yaml"),
            std::vector<std::string>{"learners: 8 learners need a global batch of at least 8 samples (one per "
                                     "learner); the largest in batches is 4"});
}

TEST(StudyHostile, GridBeyondTheLimitDoesNotReportConsequences) {
  EXPECT_EQ(errors_of("study_batches_2_62.yaml"),
            std::vector<std::string>{"batches.to: expected an integer in [1, 2^30 (1073741824)], got "
                                     "\"4611686018427387904\""});
}

}  // namespace
}  // namespace kp
