// kp_keys_doc: writes or checks docs/keys.md, the reference of every YAML key (see key_markdown.h).
//   kp_keys_doc --root <source dir> --write docs/keys.md   regenerate (target keys_doc)
//   kp_keys_doc --root <source dir> --check docs/keys.md   exit 1 when a key lacks a meaning, a
//                                                          meaning names no key, or the file is stale
// --meanings <file> replaces docs/key_meanings.yaml (the tests' negative controls).
// The keys are those the parsers ask for while they read every shipped hardware, workload and study
// file and one probe per layer kind; a key reached only on a branch that no file takes would be
// missed, so probes below take the branches the shipped files do not.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "core/config_map.h"
#include "core/hw_spec.h"
#include "core/network_parse.h"
#include "core/workload_spec.h"
#include "tools/keys_doc/key_audit.h"
#include "tools/keys_doc/key_markdown.h"
#include "tools/study/study_spec.h"

namespace fs = std::filesystem;
using namespace kp;

namespace {

const char* kHint =
    "write the meaning of each new key in docs/key_meanings.yaml, then regenerate docs/keys.md with\n"
    "  cmake --build build --target keys_doc";

std::vector<std::string> yaml_files(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Reads `doc` as a `section` file with the log on; the errors of a probe are expected.
void read(KeyReference& keys, const std::string& section, const ConfigDoc& doc) {
  keys.begin(section, doc);
  try {
    if (section == "hardware") parse_hardware(doc);
    else if (section == "workload") parse_workload(doc);
    else parse_study(doc);
  } catch (const std::exception&) {
  }
  keys.end();
}

std::string section_of(const ConfigDoc& doc) {
  if (doc.root()["chip"]) return "hardware";
  if (doc.root()["hardware"]) return "study";
  return "workload";
}

void gather(KeyReference& keys, const fs::path& root) {
  for (const char* dir : {"hw_configs", "workloads", "studies", "docs/examples", "tests/data/workloads"})
    for (const std::string& file : yaml_files(root / dir)) {
      try {
        const ConfigDoc doc = ConfigDoc::load(file);
        read(keys, section_of(doc), doc);
      } catch (const std::exception& e) {
        std::cerr << "kp_keys_doc: " << file << " does not load: " << e.what() << "\n";
      }
    }
  // Probes of every layer kind, so that a kind no shipped network uses is listed with its keys: one
  // bare, and one per key that a kind reads only when it is there (each form of padding, the other
  // target shape, a shortcut). A kind that does not read the key reports it unknown: no row.
  for (const auto& entry : layer_registry().entries())
    for (const char* extra : {"", "padding: same", "padding: 1", "to: {sequence: 1, features: 1}", "shortcut: []"}) {
      const ConfigDoc doc = ConfigDoc::parse("network:\n  - kind: " + entry.kind + "\n    " + extra + "\n",
                                             "probe " + entry.kind + " " + extra);
      keys.begin("workload", doc);
      ConfigMap top(doc, doc.root());
      parse_layers(top, "network");
      keys.end();
    }
  // Branches no shipped file takes: a hardware `runtime:` section, a transformer's classify head, a
  // study's list of workloads and its grids as lists.
  ConfigDoc hw = ConfigDoc::load((root / "hw_configs/h100_cluster.yaml").string());
  hw.apply_override("runtime={}");
  read(keys, "hardware", hw);
  // A calibrated file's `calibration:` section (kneepoint calibrate writes it; no hw_configs file has one).
  ConfigDoc calibrated = ConfigDoc::load((root / "hw_configs/h100_cluster.yaml").string());
  calibrated.apply_override(
      "calibration={spec: a.yaml, spec_fnv1a64: 0123456789abcdef, measurements: m.csv, measurements_fnv1a64: "
      "0123456789abcdef, workload: w.yaml, fitted: step_overhead, fitted_values: [1, 0, 0], condition_index: 1, rms_relative_error: 0, "
      "rows: [{line: 2, batch: 1, measured: 1 ms, spec: 1 ms, calibrated: 1 ms}]}");
  read(keys, "hardware", calibrated);
  // Retired keys, read only to say what to write instead.
  ConfigDoc retired_hw = ConfigDoc::load((root / "hw_configs/h100_cluster.yaml").string());
  retired_hw.apply_override("chip.compute.array.bytes_per_element=2");
  read(keys, "hardware", retired_hw);
  ConfigDoc retired_wl = ConfigDoc::load((root / "workloads/gpt2_small.yaml").string());
  retired_wl.apply_override("bytes_per_element=2");
  read(keys, "workload", retired_wl);
  ConfigDoc bert = ConfigDoc::load((root / "workloads/bert_base_squad.yaml").string());
  bert.apply_override("transformer.head=classify");
  read(keys, "workload", bert);
  read(keys, "study", ConfigDoc::parse("name: probe\nworkloads: [w.yaml]\nhardware: [h.yaml]\nbatches: [1]\n"
                                       "learners: [1]\n", "probe study"));
  // The map form of layout: (shipped studies use layout: search).
  read(keys, "study", ConfigDoc::parse("name: probe\nworkloads: [w.yaml]\nhardware: [h.yaml]\nbatches: [1]\n"
                                       "learners: [1]\nlayout: {dp: 1, tp: 1, pp: 1, zero: 0, recompute: none, "
                                       "micro_batch: 1, schedule: 1f1b, sequence_parallel: false}\n",
                                       "probe study layout"));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = ".", write, check, meanings;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--root")) root = argv[i + 1];
    else if (!std::strcmp(argv[i], "--write")) write = argv[i + 1];
    else if (!std::strcmp(argv[i], "--check")) check = argv[i + 1];
    else if (!std::strcmp(argv[i], "--meanings")) meanings = argv[i + 1];
  }
  if (write.empty() == check.empty() || argc % 2 == 0) {
    std::cerr << "usage: kp_keys_doc --root <source dir> (--write | --check) docs/keys.md [--meanings <file>]\n";
    return 2;
  }
  KeyReference keys;
  set_key_log(&keys);
  gather(keys, root);
  set_key_log(nullptr);
  const KeySections sections = keys.sections();
  if (meanings.empty()) meanings = (fs::path(root) / "docs/key_meanings.yaml").string();
  std::unique_ptr<KeyMarkdown> page;
  try {
    page = std::make_unique<KeyMarkdown>(sections, meanings);
  } catch (const YAML::Exception& e) {
    std::cerr << meanings << ":" << e.mark.line + 1 << ":" << e.mark.column + 1 << ": error: " << e.msg << "\n";
    return 2;
  }
  std::vector<std::string> problems = page->problems();
  for (std::string& p : unreached_keys(root, sections)) problems.push_back(std::move(p));
  for (const std::string& p : problems) std::cerr << p << "\n";
  const std::string text = page->render();
  if (!write.empty()) {
    std::ofstream(write, std::ios::binary) << text;
    if (!problems.empty()) std::cerr << kHint << "\n";
    return problems.empty() ? 0 : 1;
  }
  if (!problems.empty()) {
    std::cerr << kHint << "\n";
    return 1;
  }
  if (read_file(check) != text) {
    std::cerr << check << " is stale (it differs from what the parsers accept now): " << kHint << "\n";
    return 1;
  }
  std::cout << check << " lists every key the parsers accept\n";
  return 0;
}
