#pragma once
// What `kneepoint fit` prints beyond the law for a curve file from `kneepoint curve`: the protocol
// and B_simple of its provenance (`# key: value` lines) next to the fitted B_crit, and the scaling
// of the best learning rate and momentum with the batch size from its per-trial rows
// (models/step_curve/lr_scaling.h). Files without them (batch,steps only) print nothing extra.
#include <iosfwd>
#include <string>

#include "core/json_writer.h"
#include "models/step_curve/lr_scaling.h"
#include "models/step_curve/step_law_fit.h"

namespace kp {

struct CurveExtras {
  std::string b_simple, b_simple_method, protocol;
  bool has_scaling = false;
  LrScaling scaling;
  std::string scaling_note;  // why there is no scaling fit
};

// Reads the extras of a curve CSV; a scaling fit that cannot be made leaves a note instead.
CurveExtras read_curve_extras(const std::string& path);

// Numbers as the fit verb prints them in text, with `fmt` (inf as inf).
std::string num(double v, const char* fmt = "%.6g");

void print_extras_text(std::ostream& out, const StepLawFit& fit, const CurveExtras& extras);
// The extras as members of the fit's JSON object that `j` has open.
void print_extras_json(JsonWriter& j, const CurveExtras& extras);

}  // namespace kp
