// Step-curve measurement (models/step_curve/measure): the Halton points by hand, determinism
// across job counts, resume from a torn journal, and pruning that never changes the minimum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/config_error.h"
#include "models/step_curve/measure/curve_journal.h"
#include "models/step_curve/measure/curve_measure.h"
#include "models/step_curve/measure/eval_rule.h"
#include "models/step_curve/measure/halton.h"
#include "tests/models/trainer/test_networks.h"

namespace kp {
namespace {

TEST(Halton, FirstPointsByHand) {
  const double base2[] = {0.0, 1.0 / 2, 1.0 / 4, 3.0 / 4, 1.0 / 8, 5.0 / 8, 3.0 / 8, 7.0 / 8};
  const double base3[] = {0.0, 1.0 / 3, 2.0 / 3, 1.0 / 9, 4.0 / 9, 7.0 / 9, 2.0 / 9, 5.0 / 9};
  for (int i = 0; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(halton(i, 0), base2[i]) << i;
    EXPECT_DOUBLE_EQ(halton(i, 1), base3[i]) << i;
  }
  EXPECT_DOUBLE_EQ(halton(1, 2), 1.0 / 5);
}

TEST(SearchPoint, LogUniformMapping) {
  CurveSearchSpec s;
  s.lr_min = 1e-4, s.lr_max = 1.0;  // 4 decades
  s.one_minus_momentum_min = 1e-3, s.one_minus_momentum_max = 1e-1;  // 2 decades
  const SearchPoint p0 = search_point(s, 0);  // Halton point 1 = (1/2, 1/3)
  EXPECT_NEAR(p0.learning_rate, 1e-2, 1e-15);
  EXPECT_NEAR(p0.momentum, 1.0 - std::pow(10.0, -3.0 + 2.0 / 3.0), 1e-15);
  const SearchPoint p1 = search_point(s, 1);  // (1/4, 2/3)
  EXPECT_NEAR(p1.learning_rate, 1e-3, 1e-16);
  EXPECT_NEAR(p1.momentum, 1.0 - std::pow(10.0, -3.0 + 4.0 / 3.0), 1e-15);
}

// Plain SGD ignores momentum, so a sampled one would only mislabel the trial (and reorder trials by
// a false effective learning rate lr / (1 - momentum)): the learning rate alone is searched.
TEST(SearchPoint, PlainSgdSearchesTheLearningRateAlone) {
  CurveSearchSpec s;
  s.lr_min = 1e-4, s.lr_max = 1.0;
  s.base.optimizer.kind = OptimizerKind::Sgd;
  const SearchPoint p0 = search_point(s, 0);
  EXPECT_NEAR(p0.learning_rate, 1e-2, 1e-15);  // as for momentum methods
  EXPECT_EQ(p0.momentum, 0.0);
  EXPECT_EQ(search_point(s, 1).momentum, 0.0);
}

ResolvedNetwork tiny_mlp() { return test::tiny_mlp({1, 6, 6}, 16, 4); }

const Dataset& data() {
  static const Dataset d = make_synthetic_dataset({1, 6, 6}, 4, 512, 256, 5);
  return d;
}

CurveSearchSpec spec(int jobs) {
  CurveSearchSpec s;
  s.batches = {8, 32};
  s.trials = 3;
  s.base.optimizer.kind = OptimizerKind::Nesterov;
  s.base.max_steps = 300;
  s.base.eval_every = 10;
  s.base.target_error = 0.05;
  s.lr_min = 1e-3, s.lr_max = 1.0;
  s.one_minus_momentum_min = 1e-2, s.one_minus_momentum_max = 0.5;
  s.seed = 7;
  s.jobs = jobs;
  return s;
}

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "kp_measure_test";
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::filesystem::remove(p);
  return p.string();
}

TEST(MeasureCurve, SameResultWithOneAndTwoJobs) {
  const auto a = measure_curve(tiny_mlp(), data(), spec(1), "", false);
  const auto b = measure_curve(tiny_mlp(), data(), spec(2), "", false);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a, b);
  int reached = 0;
  for (const TrialRecord& r : a) reached += r.outcome == TrialOutcome::reached;
  EXPECT_GE(reached, 2) << "the test problem must be learnable for the check to mean something";
  EXPECT_EQ(steps_to_target(a), steps_to_target(b));
}

TEST(MeasureCurve, ResumeAfterTornJournalGivesTheSameCurve) {
  const std::string full = temp_path("full.journal"), torn = temp_path("torn.journal");
  const auto ref = measure_curve(tiny_mlp(), data(), spec(2), full, false);
  // Keep the header, two whole trial lines and half of the third: a kill -9 mid-write.
  std::ifstream in(full);
  std::string header, l1, l2, l3;
  std::getline(in, header), std::getline(in, l1), std::getline(in, l2), std::getline(in, l3);
  ASSERT_FALSE(l3.empty());
  {
    std::ofstream out(torn);
    out << header << "\n" << l1 << "\n" << l2 << "\n" << l3.substr(0, l3.size() / 2);
  }
  int rerun = 0;
  const auto resumed = measure_curve(tiny_mlp(), data(), spec(1), torn, true,
                                     [&](const TrialRecord&) { ++rerun; });
  EXPECT_EQ(rerun, 4);  // 6 trials, 2 journaled
  EXPECT_EQ(resumed, ref);
  EXPECT_EQ(format_curve_csv(resumed, "x").size() > 0, true);
  // The resumed journal is whole again: resuming once more runs nothing.
  rerun = 0;
  EXPECT_EQ(measure_curve(tiny_mlp(), data(), spec(2), torn, true,
                          [&](const TrialRecord&) { ++rerun; }),
            ref);
  EXPECT_EQ(rerun, 0);
  // Without --resume, or with other settings, an existing journal is refused.
  EXPECT_THROW(measure_curve(tiny_mlp(), data(), spec(1), torn, false), ConfigError);
  CurveSearchSpec other = spec(1);
  other.seed = 8;
  EXPECT_THROW(measure_curve(tiny_mlp(), data(), other, torn, true), ConfigError);
}

TEST(MeasureCurve, PruningStopsLosersEarlyAndKeepsTheMinimum) {
  CurveSearchSpec s = spec(2);
  s.trials = 5;
  const auto pruned = measure_curve(tiny_mlp(), data(), s, "", false);
  s.prune = false;
  const auto exhaustive = measure_curve(tiny_mlp(), data(), s, "", false);
  EXPECT_EQ(steps_to_target(pruned), steps_to_target(exhaustive));
  int n_pruned = 0;
  for (size_t k = 0; k < pruned.size(); ++k) {
    const TrialRecord &p = pruned[k], &e = exhaustive[k];
    ASSERT_EQ(p.trial, e.trial);
    if (p.outcome == TrialOutcome::pruned) {
      ++n_pruned;
      // Pruned only if it could not win: unpruned, it needed at least the best earlier count.
      int64_t best_before = 0;
      for (size_t j = 0; j < k; ++j)
        if (pruned[j].batch == p.batch && pruned[j].steps &&
            (best_before == 0 || *pruned[j].steps < best_before))
          best_before = *pruned[j].steps;
      ASSERT_GT(best_before, 0);
      EXPECT_TRUE(!e.steps || *e.steps >= best_before) << "batch " << p.batch << " trial " << p.trial;
    } else {
      EXPECT_EQ(p, e);  // trials that were not stopped are unchanged
    }
  }
  EXPECT_GE(n_pruned, 1) << "the test must exercise pruning";
}

TEST(ErrorAtMost, AgreesWithTheFullEvaluationAroundTheTarget) {
  TrialConfig c;
  c.batch = 16;
  c.optimizer.learning_rate = 0.05;
  Trainer t(tiny_mlp(), data(), c);
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 7; ++i) t.step();
    const double err = t.evaluate(data().validation);
    const double n = double(data().validation.n);
    // Exactly at, one sample above and below, and far from the error.
    for (double target : {err, err - 1.0 / n, err + 1.0 / n, err - 0.5 / n, 0.0, 1.0, err * 0.5}) {
      EXPECT_EQ(t.error_at_most(data().validation, target), err <= target) << err << " " << target;
    }
  }
}

TEST(EvalRule, EverySamplesRoundedUpToWholeSteps) {
  EXPECT_EQ(eval_every_for(16, 8192), 512);
  EXPECT_EQ(eval_every_for(8192, 8192), 1);
  EXPECT_EQ(eval_every_for(16384, 8192), 1);
  EXPECT_EQ(eval_every_for(3000, 8192), 3);  // 8192/3000 = 2.73 -> 3
  CurveSearchSpec s;
  s.base.eval_every = 50;
  EXPECT_EQ(eval_every_of(s, 16), 50);  // no rule: the workload's K
  s.eval_samples = 1000;
  EXPECT_EQ(eval_every_of(s, 16), 63);
}

TEST(BudgetRule, LawShapedAndCapped) {
  CurveSearchSpec s;
  s.base.max_steps = 20000;
  EXPECT_EQ(budget_of(s, 16), 20000);  // no rule: the cap
  s.budget_steps = 600, s.budget_samples = 300000;
  EXPECT_EQ(budget_of(s, 16), 19350);   // 600 + 18750
  EXPECT_EQ(budget_of(s, 8192), 637);   // 600 + ceil(36.6)
  EXPECT_EQ(budget_of(s, 1000), 900);
  s.base.max_steps = 5000;
  EXPECT_EQ(budget_of(s, 16), 5000);
}

TEST(TrialOrder, EffectiveLearningRateDescending) {
  CurveSearchSpec s;
  s.trials = 4;
  EXPECT_EQ(trial_order(s), (std::vector<int>{0, 1, 2, 3}));
  s.order = TrialOrder::effective_lr_desc;
  s.lr_min = 1e-4, s.lr_max = 1.0;
  s.one_minus_momentum_min = 1e-3, s.one_minus_momentum_max = 1e-1;
  // Halton points 1..4 = (1/2,1/3), (1/4,2/3), (3/4,1/9), (1/8,4/9): log10 lr = -4 + 4u,
  // log10(1-m) = -3 + 2v, log10(lr/(1-m)) = -1 + 4u - 2v: 0.333, -1.333, 1.778, -2.389.
  EXPECT_EQ(trial_order(s), (std::vector<int>{2, 0, 1, 3}));
}

// The scheduler's records against a sequential reference written independently: each batch
// size's trials one after another in the protocol's order, trial p stopped by train_trial at the
// best earlier count B_p, outcomes classified as the contract says.
std::vector<TrialRecord> sequential_reference(const CurveSearchSpec& s) {
  std::vector<TrialRecord> out;
  const std::vector<int> order = trial_order(s);
  for (int64_t batch : s.batches) {
    int64_t best = 0;
    for (int trial : order) {
      const SearchPoint p = search_point(s, trial);
      const TrialConfig c = trial_config_of(s, batch, trial, p);
      const TrialResult r = train_trial(tiny_mlp(), data(), c, best);
      TrialRecord rec;
      rec.batch = batch, rec.trial = trial, rec.learning_rate = p.learning_rate, rec.momentum = p.momentum;
      if (r.steps_to_target) {
        rec.steps = *r.steps_to_target, rec.outcome = TrialOutcome::reached;
        if (best == 0 || *rec.steps < best) best = *rec.steps;
      } else if (r.diverged) {
        rec.outcome = TrialOutcome::diverged;
      } else {
        rec.outcome = best > 0 && best < c.max_steps ? TrialOutcome::pruned : TrialOutcome::budget;
      }
      out.push_back(rec);
    }
  }
  sort_records(out);
  return out;
}

TEST(MeasureCurve, TrialsOfOneChainRunningTogetherGiveTheSequentialRecords) {
  CurveSearchSpec s = spec(1);
  s.batches = {8, 32, 64};
  s.trials = 8;
  s.base.max_steps = 400;
  s.eval_samples = 96;  // K = 12, 3, 2 steps
  s.budget_steps = 100, s.budget_samples = 4000;
  s.order = TrialOrder::effective_lr_desc;
  s.lr_max = 30.0;  // wide enough that the largest effective learning rates diverge
  s.one_minus_momentum_min = 1e-3;
  const std::vector<TrialRecord> ref = sequential_reference(s);
  int pruned = 0, reached = 0, diverged = 0;
  for (const TrialRecord& r : ref) {
    pruned += r.outcome == TrialOutcome::pruned;
    reached += r.outcome == TrialOutcome::reached;
    diverged += r.outcome == TrialOutcome::diverged;
  }
  ASSERT_GE(pruned, 3) << "the case must exercise pruning";
  ASSERT_GE(reached, 3);
  ASSERT_GE(diverged, 1);
  std::printf("reference: %d reached, %d pruned, %d diverged of %zu\n", reached, pruned, diverged, ref.size());
  for (int jobs : {1, 2, 3, 5}) {
    s.jobs = jobs;
    EXPECT_EQ(measure_curve(tiny_mlp(), data(), s, "", false), ref) << jobs << " jobs";
  }
}

TEST(CurveJournal, LineRoundTrip) {
  TrialRecord r;
  r.batch = 64, r.trial = 3, r.learning_rate = 0.1234567890123, r.momentum = 0.987654321;
  r.steps = 450, r.outcome = TrialOutcome::reached, r.wall_s = 1.5;
  std::string line = format_journal_line(r);
  line.pop_back();
  TrialRecord back;
  ASSERT_TRUE(parse_journal_line(line, back));
  EXPECT_EQ(back, r);
  EXPECT_FALSE(parse_journal_line("64,3,0.1,0.9,45", back));
  EXPECT_FALSE(parse_journal_line("64,3,0.1,0.9,inf,reached,1", back));
}

}  // namespace
}  // namespace kp
