#include "tools/validate/calibrated_hw_file.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/fnv_hash.h"
#include "core/number_format.h"

namespace kp {

namespace fs = std::filesystem;


std::string path_from(const std::string& from_file, const std::string& path) {
  const fs::path dir = fs::absolute(fs::path(from_file)).lexically_normal().parent_path();
  const fs::path target = fs::absolute(fs::path(path)).lexically_normal();
  // Relative only below a common top-level folder: "../../work/x" from /tmp says less than /work/x.
  const bool shared_top = dir.begin() != dir.end() && target.begin() != target.end() &&
                          std::next(dir.begin()) != dir.end() && std::next(target.begin()) != target.end() &&
                          *std::next(dir.begin()) == *std::next(target.begin());
  const fs::path rel = target.lexically_relative(dir);
  return rel.empty() || !shared_top ? target.generic_string() : rel.generic_string();
}

namespace {

// A YAML double-quoted scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `text` as "# " comment lines of at most about 100 characters, broken at spaces.
std::string comment(const std::string& text) {
  std::string out, line = "#";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (line.size() > 1 && line.size() + 1 + word.size() > 100) out += line + "\n", line = "#";
    line += " " + word;
    at = end + 1;
  }
  return out + line + "\n";
}

// A file calibrated again keeps one suffix.
std::string calibrated_name(const std::string& name) {
  const std::string suffix = "-calibrated";
  const bool has = name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return has ? name : name + suffix;
}

std::string ms(double s) { return format_sig(s * 1e3, 10) + " ms"; }
std::string us(double s) { return format_sig(s * 1e6, 10) + " us"; }

}  // namespace

std::string calibrated_hw_yaml(const CalibratedFileInputs& in) {
  const ConstantsFit& f = *in.fit;
  const StepMeasurements& m = *in.measurements;
  const std::string spec = path_from(in.out_path, in.hw_path);
  const std::string meas = path_from(in.out_path, m.path);
  const bool launch = f.fitted[static_cast<int>(FittedConstant::KernelLaunch)];
  std::ostringstream o;
  o << "# Written by kneepoint calibrate: " << spec << " with device constants fitted by least squares\n"
    << "# (relative residuals) to the one-device step times of " << meas << "\n"
    << "# (" << m.layout << ", " << m.rows.size() << " rows) for " << path_from(in.out_path, in.workload_path)
    << ".\n"
    << comment("kernel_launch " + f.launch_note + ".");
  for (const std::string& n : f.notes) o << comment("Note: " + n + ".");
  o << "# Every other value is the base file's (base:); rerun calibrate after changing it.\n"
    << "base: " << quoted(spec) << "\n"
    << "name: " << quoted(calibrated_name(in.hw->name)) << "\n"
    << "chip:\n  compute:\n"
    << "    efficiency: " << format_sig(f.compute_efficiency, 10) << "   # spec: "
    << format_sig(in.hw->compute_efficiency, 6) << "\n"
    << "runtime:\n"
    << "  step_overhead: " << ms(f.step_overhead_s) << "   # spec: " << ms(in.hw->runtime.step_overhead_s) << "\n";
  if (launch) o << "  kernel_launch: " << us(f.kernel_launch_s) << "   # spec: " << us(in.hw->runtime.kernel_launch_s) << "\n";
  o << "calibration:\n"
    << "  spec: " << quoted(spec) << "\n"
    << "  spec_fnv1a64: " << quoted(fnv1a64_hex(read_bytes(in.hw_path))) << "\n"
    << "  measurements: " << quoted(meas) << "\n"
    << "  measurements_fnv1a64: " << quoted(fnv1a64_hex(m.bytes)) << "\n"
    << "  workload: " << quoted(path_from(in.out_path, in.workload_path)) << "\n";
  CalibrationSpec names;
  for (int i = 0; i < kFittedConstants; ++i) names.fitted[i] = f.fitted[i];
  o << "  fitted: " << quoted(names.fitted_text()) << "\n"
    << "  fitted_values: [" << format_sig(f.compute_efficiency, 10) << ", " << format_sig(f.step_overhead_s, 10) << ", "
    << format_sig(f.kernel_launch_s, 10) << "]   # compute_efficiency, step_overhead s, kernel_launch s\n"
    << "  condition_index: " << format_sig(f.condition_index, 6) << "\n"
    << "  rms_relative_error: " << format_sig(f.rms_relative_error, 6) << "\n"
    << "  rows:\n";
  for (size_t i = 0; i < m.rows.size(); ++i)
    o << "    - {line: " << m.rows[i].line << ", batch: " << m.rows[i].batch << ", measured: " << ms(m.rows[i].step_time_s)
      << ", spec: " << ms(f.spec_s[i]) << ", calibrated: " << ms(f.calibrated_s[i]) << "}\n";
  return o.str();
}

}  // namespace kp
