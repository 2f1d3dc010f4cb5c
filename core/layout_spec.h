#pragma once
// A parallel layout of one training step on P = dp x tp x pp chips, as `--layout
// dp=64,tp=8,pp=4,zero=1,recompute=selective,micro_batch=2` or a study's `layout:` map.
// Contract: a parsed Layout has tp, pp >= 1, zero in 0..3, micro_batch >= 0 (0 = automatic, see
// sim/layout_update.h), dp >= 0 (0 = derived from the chip count: P / (tp pp)).
//   dp        data-parallel replicas (gradients reduced across them)
//   tp        tensor parallelism inside a node (Megatron-LM, Shoeybi et al. 2019)
//   pp        pipeline stages (GPipe, Huang et al. 2019; 1F1B, Narayanan et al. 2021)
//   zero      ZeRO stage (Rajbhandari et al. 2020): 1 shards optimizer state, 2 also gradients,
//             3 also weights (PyTorch FSDP's full sharding)
//   recompute none | selective (attention scores, Korthikanti et al. 2022) | full
//   micro_batch samples per micro-batch of one replica; a replica's batch runs as
//             ceil(batch/dp/micro_batch) micro-batches (gradient accumulation, pipeline fill)
//   schedule  1f1b (default) or gpipe: the same bubble, different activation memory
//   sequence_parallel  Korthikanti et al.'s reduce-scatter/all-gather variant of tp
#include <cstdint>
#include <string>

#include "core/config_map.h"

namespace kp {

enum class Recompute { None, Selective, Full };
enum class PipeSchedule { OneFOneB, GPipe };

const char* recompute_name(Recompute r);      // "none", "selective", "full"
const char* schedule_name(PipeSchedule s);    // "1f1b", "gpipe"

struct Layout {
  int64_t dp = 0, tp = 1, pp = 1;
  int zero = 0;
  Recompute recompute = Recompute::None;
  int64_t micro_batch = 0;
  PipeSchedule schedule = PipeSchedule::OneFOneB;
  bool sequence_parallel = false;

  int64_t chips() const { return dp * tp * pp; }
  // dp x tp x pp written as `dp=..,tp=..,...` (the --layout syntax; defaults left out).
  std::string text() const;
};

struct LayoutChoice {
  bool search = false;  // `layout: search`: the best feasible layout per (M, P) point
  Layout fixed;
};

// Plausibility limits of a layout's sizes, stated in the errors.
constexpr int64_t kMaxTensorParallel = 1024, kMaxPipelineStages = 4096;

// Sets one key of `l` from its text ("tp", "8"); "" when fine, else what was expected (the
// caller places the error: --layout, a CSV field).
std::string set_layout_key(Layout& l, const std::string& key, const std::string& value);

// `--layout` text: comma-separated key=value pairs (or "search"). Errors name `origin` ("--layout").
LayoutChoice parse_layout_text(const std::string& text, const std::string& origin);
// A study's `layout:` value: the scalar "search" or a map of the same keys (positions from YAML).
LayoutChoice parse_layout_node(ConfigMap& parent, const std::string& key);

// dp for P chips: the layout's own dp when given, else P / (tp pp); "" or why P does not fit.
std::string layout_problem(const Layout& l, int64_t chips);
Layout layout_for_chips(const Layout& l, int64_t chips);

}  // namespace kp
