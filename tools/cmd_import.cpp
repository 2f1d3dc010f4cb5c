// kneepoint import onnx MODEL.onnx [--out WORKLOAD.yaml]: a workload YAML from an ONNX model graph
// (tools/import/), with a summary of one line per ONNX node.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "core/atomic_file.h"
#include "core/config_error.h"
#include "tools/cli_common.h"
#include "tools/import/onnx_file.h"
#include "tools/import/onnx_mapper.h"
#include "tools/import/workload_writer.h"

namespace kp {

namespace {

std::string workload_name(const std::string& path) {
  std::string out;
  for (char c : std::filesystem::path(path).stem().string())
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "imported" : out;
}

}  // namespace

namespace {

// Names in a corrupted model may hold control bytes; an error prints them as \xNN so that the
// message stays one readable line.
Diagnostic printable(Diagnostic d) {
  std::string out;
  for (unsigned char c : d.message) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    static const char* const kHex = "0123456789abcdef";
    out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
  }
  d.message = std::move(out);
  return d;
}

template <class F>
auto readable_errors(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const ConfigError& e) {
    std::vector<Diagnostic> ds;
    for (const Diagnostic& d : e.diagnostics()) ds.push_back(printable(d));
    throw ConfigError(std::move(ds));
  }
}

}  // namespace

int run_import(const Args& args) {
  po::options_description desc("import options");
  std::string format, model, out, name;
  desc.add_options()("format", po::value(&format)->required(), "the model format (onnx)")(
      "model", po::value(&model)->required(), "the model file (.onnx; weights need not be present)")(
      "out", po::value(&out), "write the workload YAML here (default: standard output, the summary to stderr)")(
      "name", po::value(&name), "the workload's name (default: the file name without .onnx)");
  po::positional_options_description pos;
  pos.add("format", 1).add("model", 1);
  po::variables_map vm;
  if (!parse_options("import", "kneepoint import onnx MODEL.onnx [--out WORKLOAD.yaml] [--name NAME]", args, desc,
                     vm, &pos))
    return 0;
  if (format != "onnx") throw ConfigError("import", "expected the format onnx, got \"" + format + "\"");
  const OnnxGraph graph = readable_errors([&] { return OnnxGraph(read_onnx_model(model), model); });
  const ImportedNetwork net =
      readable_errors([&] { return import_onnx(graph, name.empty() ? workload_name(model) : name); });
  std::FILE* summary = out.empty() ? stderr : stdout;
  for (const std::string& line : net.summary) std::fprintf(summary, "%s\n", line.c_str());
  std::fflush(summary);
  if (net.error) throw ConfigError({printable(*net.error)});
  const std::string yaml = write_workload_yaml(net);
  if (out.empty()) {
    std::fputs(yaml.c_str(), stdout);
  } else {
    try {
      write_file_atomic(out, yaml);
    } catch (const std::runtime_error& e) {
      throw ConfigError("--out", "cannot write \"" + out + "\": " + e.what());
    }
  }
  std::fprintf(summary, "%zu layers, %lld parameters (from the ONNX weight shapes)%s%s\n", net.layers.size(),
               static_cast<long long>(net.parameters), out.empty() ? "" : "; wrote ", out.c_str());
  return 0;
}

}  // namespace kp
