// kneepoint simulate: one update T_update(M, P) with its breakdown and per-layer GEMMs.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "core/config_error.h"
#include "core/json_writer.h"
#include "models/time_model/power_model.h"
#include "core/limits.h"
#include "sim/analytic/collective_analytic.h"
#include "sim/layer_json.h"
#include "sim/layout_search.h"
#include "sim/systemc/systemc_update.h"
#include "tools/cli_common.h"
#include "tools/report/report_writer.h"
#include "tools/study/update_case.h"

namespace kp {

int run_simulate(const Args& args) {
  po::options_description desc("simulate options");
  std::string hw, workload, fidelity, format, trace, layout_text;
  int64_t batch = 0, learners = 0;
  std::vector<std::string> sets;
  desc.add_options()("hw", po::value(&hw)->required(), "hardware YAML")(
      "workload", po::value(&workload)->required(), "workload YAML")(
      "batch", po::value(&batch)->required(), "global batch size M (samples)")(
      "learners", po::value(&learners)->default_value(1), "learners (chips) P")(
      "fidelity", po::value(&fidelity)->default_value("analytic"), "analytic|systemc")(
      "format", po::value(&format)->default_value("text"), "text|json")(
      "trace", po::value(&trace), "systemc: write a Chrome/Perfetto trace-event timeline (JSON) here")(
      "layout", po::value(&layout_text),
      "parallel layout dp=..,tp=..,pp=..,zero=0..3,recompute=none|selective|full,micro_batch=..,"
      "schedule=1f1b|gpipe,sequence_parallel=true, or search (the fastest that fits)")(
      "set", po::value(&sets)->composing(), "dotted.key=value override (repeatable)");
  po::variables_map vm;
  if (!parse_options("simulate", "kneepoint simulate --hw F --workload F --batch M [--learners P]", args,
                     desc, vm))
    return 0;
  checked_option("--batch", batch, 1, limits::kBatch);
  checked_option("--learners", learners, 1, limits::kLearners);
  if (batch < learners)
    throw ConfigError("--batch", "expected at least one sample per learner (--learners " + std::to_string(learners) +
                                     "), got " + std::to_string(batch));
  if (format != "text" && format != "json") throw ConfigError("--format", "expected text or json, got \"" + format + "\"");
  const Case c = load_update_case(hw, workload, sets);  // no N(M): never reads or measures the curve
  if (learners > c.hw.interconnect.max_learners)
    throw ConfigError("--learners", "expected at most " + std::to_string(c.hw.interconnect.max_learners) +
                                        " (interconnect.max_learners of " + hw + "), got " + std::to_string(learners));
  LayoutChoice layout;
  if (!layout_text.empty()) layout = parse_layout_text(layout_text, "--layout");
  if (layout_text.empty()) {
    if (const std::string why = learners_problem(c.hw.interconnect, learners); !why.empty())
      throw ConfigError("--learners", why);
    if (const std::string why = memory_problem(c.hw, c.step, c.precision.bytes); !why.empty())
      throw ConfigError({Diagnostic{hw, 0, 0, "chip.memory.dram.capacity", why}});
  }
  const auto model = make_update_model(c, fidelity, layout_text.empty() ? nullptr : &layout);
  if (!trace.empty()) {
    auto* sc = dynamic_cast<SystemcUpdate*>(model.get());
    if (!sc) throw ConfigError("--trace", "a timeline needs --fidelity systemc, got " + fidelity);
    const size_t slash = trace.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : trace.substr(0, slash));
    if (::access(dir.c_str(), W_OK) != 0)
      throw ConfigError("--trace", "expected a file in a writable folder, got \"" + trace + "\"");
    sc->set_trace_file(trace);
  }
  std::vector<LayerRecord> layers;
  if (const auto* lm = dynamic_cast<const LayoutModel*>(model.get()))
    if (const std::string why = lm->problem(batch, learners); !why.empty()) throw ConfigError("--layout", why);
  UpdateResult r = model->simulate(batch, learners, layout_text.empty() ? &layers : nullptr);
  apply_power_cap(c.hw, learners, r);  // the per-layer records below stay at the nominal clock
  if (!r.fits)
    throw ConfigError({Diagnostic{hw, 0, 0, "chip.memory.dram.capacity",
                                  "the step does not fit device memory under " + r.layout.text() + ": " +
                                      memory_text(r.memory) + " (accumulate smaller micro-batches, recompute "
                                      "activations, shard with zero=1..3, split with tp/pp, or try --layout search)"}});
  const UpdateBreakdown& b = r.breakdown;
  // Static power over the whole update: the chips' share decides the average power per chip.
  const StaticPower st = static_power(c.hw, learners);
  const double static_j = st.system_w * b.t_update_s + learners * c.hw.power.chip_busy_w * busy_seconds(b);
  const double chip_w = average_chip_power_w(r.energy_j + static_j - (st.system_w - st.chip_w * learners) * b.t_update_s,
                                             learners, b.t_update_s);
  if (format == "json") {
    JsonWriter j;
    j.begin_object().key("fidelity").value(model->fidelity());
    // Whether the device constants are the spec sheet's or fitted by kneepoint calibrate.
    j.key("constants").value(c.hw.calibration.present ? "calibrated" : "spec-only").key("calibrated_from");
    if (c.hw.calibration.present) j.value(c.hw.calibration.file); else j.null();
    j.key("t_update_s").value(b.t_update_s).key("per_learner_batch").value(r.per_learner_batch);
    j.key("accumulation_steps").value(r.accumulation_steps);
    j.key("layout").value(r.layout.text());
    write_memory_json(j, r.memory);
    // What the workload is, independent of the hardware: GEMM FLOPs of forward and backward.
    j.key("parameters").value(c.step.params);
    j.key("flops_per_sample").value(2.0 * c.step.gemm_macs_per_sample());
    j.key("tokens_per_sample").value(c.step.tokens_per_sample);
    j.key("tokens_per_step").value(c.step.tokens_per_sample * batch);
    j.key("breakdown_s").begin_object();
    j.key("forward").value(b.forward_s).key("backward").value(b.backward_s);
    j.key("allreduce").value(b.allreduce_s).key("allreduce_exposed").value(b.allreduce_exposed_s);
    j.key("optimizer").value(b.optimizer_s).key("launch_wait").value(b.launch_wait_s);
    j.key("host").value(b.host_s).key("input").value(b.input_s);
    j.key("pipeline_bubble").value(b.pipeline_bubble_s).key("p2p").value(b.p2p_s).key("tp_comm").value(b.tp_comm_s);
    j.end_object();
    j.key("kernels").value(r.kernels).key("runtime_section").value(c.hw.runtime.present);
    j.key("energy_j").value(r.energy_j + static_j).key("dynamic_energy_j").value(r.energy_j);
    j.key("static_power_modelled").value(c.hw.power.modelled).key("static_energy_j").value(static_j);
    j.key("avg_chip_power_w").value(chip_w).key("power_clock_scale").value(b.power_clock_scale).key("tdp_w");
    if (c.hw.power.tdp_w > 0) j.value(c.hw.power.tdp_w); else j.null();
    j.key("layers").begin_array();
    for (const LayerRecord& l : layers) {
      j.begin_object().key("name").value(l.name).key("phase").value(phase_name(l.phase));
      j.key("m").value(l.gemm.m).key("n").value(l.gemm.n).key("k").value(l.gemm.k);
      j.key("cycles").value(l.cycles).key("utilization").value(l.utilization).key("seconds").value(l.seconds);
      write_layer_detail(j, l);
      j.end_object();
    }
    j.end_array().end_object();
    std::cout << j.str() << "\n";
    return 0;
  }
  std::printf("%s on %s, M = %lld samples, P = %lld learners (%lld per learner), %s fidelity\n",
              c.workload.name.c_str(), c.hw.name.c_str(), static_cast<long long>(batch),
              static_cast<long long>(learners), static_cast<long long>(r.per_learner_batch), model->fidelity());
  std::printf("  constants         %s\n", constants_provenance(c.hw.calibration).c_str());
  std::printf("  T_update          %s\n", human_seconds(b.t_update_s).c_str());
  std::printf("  parameters        %lld; %.4g GEMM FLOP per sample (forward + backward)\n",
              static_cast<long long>(c.step.params), 2.0 * c.step.gemm_macs_per_sample());
  if (c.step.tokens_per_sample > 0)
    std::printf("  tokens            %lld per sample, %lld per step\n", static_cast<long long>(c.step.tokens_per_sample),
                static_cast<long long>(c.step.tokens_per_sample * batch));
  if (!layout_text.empty())
    std::printf("  micro-batches     %lld of %lld samples per replica\n", static_cast<long long>(r.accumulation_steps),
                static_cast<long long>(r.layout.micro_batch));
  else if (r.accumulation_steps > 1)
    std::printf("  accumulation      %lld micro-steps (the per-learner batch does not fit device memory)\n",
                static_cast<long long>(r.accumulation_steps));
  std::printf("  layout            %s\n", r.layout.text().c_str());
  std::printf("  memory per chip   %s\n", memory_text(r.memory).c_str());
  std::printf("  forward           %s\n  backward          %s\n", human_seconds(b.forward_s).c_str(),
              human_seconds(b.backward_s).c_str());
  if (!layout_text.empty())
    std::printf("  pipeline          bubble %s, stage transfers %s; tensor-parallel all-reduces %s (in the phases)\n",
                human_seconds(b.pipeline_bubble_s).c_str(), human_seconds(b.p2p_s).c_str(),
                human_seconds(b.tp_comm_s).c_str());
  std::printf("  all-reduce        %s (exposed %s)\n", human_seconds(b.allreduce_s).c_str(),
              human_seconds(b.allreduce_exposed_s).c_str());
  std::printf("  optimizer         %s\n", human_seconds(b.optimizer_s).c_str());
  if (c.hw.power.modelled)
    std::printf("  energy            %.4g J per update (all learners: %.4g J dynamic + %.4g J static)\n",
                r.energy_j + static_j, r.energy_j, static_j);
  else
    std::printf("  energy            %.4g J per update (all learners, dynamic only: static power not modelled)\n",
                r.energy_j);
  std::printf("  power per chip    %s\n", power_summary(c.hw, chip_w, b.power_clock_scale).c_str());
  if (const std::string w = tdp_warning(c.hw, chip_w); !w.empty()) std::fprintf(stderr, "%s\n", w.c_str());
  if (c.hw.runtime.present)
    std::printf("  fixed costs       %lld kernels, launch waits %s (in the phases above), host %s, input %s\n",
                static_cast<long long>(r.kernels), human_seconds(b.launch_wait_s).c_str(),
                human_seconds(b.host_s).c_str(), human_seconds(b.input_s).c_str());
  else
    std::printf("  fixed costs       none: %s has no runtime: section, so kernel launches (%lld), host overhead and "
                "input are counted as zero\n",
                c.hw.source_file.c_str(), static_cast<long long>(r.kernels));
  return 0;
}

}  // namespace kp
