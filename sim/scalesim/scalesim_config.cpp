#include "sim/scalesim/scalesim_config.h"

#include <sstream>
#include <vector>

#include "core/config_error.h"
#include "sim/scalesim/text_fields.h"

namespace kp {
namespace {

using scalesim_text::Field;
using scalesim_text::lower;
using scalesim_text::parse_int;
using scalesim_text::quoted;
using scalesim_text::trim;

// Ignored: a later SCALE-Sim v2 key (SRAM layout, sparsity details) that does not change the
// COMPUTE report kneepoint models; spelled exactly, so a typo is still an error. FalseOnly: a
// feature kneepoint does not model, accepted only when switched off.
enum class Kind { Text, Positive, NonNegative, Bandwidth, DataflowKey, Interface, Ignored, FalseOnly };

struct KeyDef {
  const char* section;  // lower case, as configparser compares
  const char* key;      // lower case
  const char* display;  // as SCALE-Sim's docs spell it
  Kind kind;
  bool required;
};

// SCALE-Sim v2 scale_config.py's keys; MemoryBanks is read but has no effect there either.
const KeyDef kKeys[] = {
    {"general", "run_name", "run_name", Kind::Text, false},
    {"architecture_presets", "arrayheight", "ArrayHeight", Kind::Positive, true},
    {"architecture_presets", "arraywidth", "ArrayWidth", Kind::Positive, true},
    {"architecture_presets", "ifmapsramszkb", "IfmapSramSzkB", Kind::Positive, true},
    {"architecture_presets", "filtersramszkb", "FilterSramSzkB", Kind::Positive, true},
    {"architecture_presets", "ofmapsramszkb", "OfmapSramSzkB", Kind::Positive, true},
    {"architecture_presets", "ifmapoffset", "IfmapOffset", Kind::NonNegative, false},
    {"architecture_presets", "filteroffset", "FilterOffset", Kind::NonNegative, false},
    {"architecture_presets", "ofmapoffset", "OfmapOffset", Kind::NonNegative, false},
    {"architecture_presets", "bandwidth", "Bandwidth", Kind::Bandwidth, false},
    {"architecture_presets", "dataflow", "Dataflow", Kind::DataflowKey, true},
    {"architecture_presets", "memorybanks", "MemoryBanks", Kind::Positive, false},
    {"run_presets", "interfacebandwidth", "InterfaceBandwidth", Kind::Interface, true},
    // Keys of later SCALE-Sim v2 configs (configs/scale.cfg): SRAM bank layout and sparsity.
    {"architecture_presets", "onchipmemorybanks", "OnChipMemoryBanks", Kind::Ignored, false},
    {"architecture_presets", "onchipmemorybankports", "OnChipMemoryBankPorts", Kind::Ignored, false},
    {"architecture_presets", "ifmapcustomlayout", "IfmapCustomLayout", Kind::FalseOnly, false},
    {"architecture_presets", "filtercustomlayout", "FilterCustomLayout", Kind::FalseOnly, false},
    {"architecture_presets", "ifmapsrambankbandwidth", "IfmapSRAMBankBandwidth", Kind::Ignored, false},
    {"architecture_presets", "ifmapsrambanknum", "IfmapSRAMBankNum", Kind::Ignored, false},
    {"architecture_presets", "ifmapsrambankport", "IfmapSRAMBankPort", Kind::Ignored, false},
    {"architecture_presets", "filtersrambankbandwidth", "FilterSRAMBankBandwidth", Kind::Ignored, false},
    {"architecture_presets", "filtersrambanknum", "FilterSRAMBankNum", Kind::Ignored, false},
    {"architecture_presets", "filtersrambankport", "FilterSRAMBankPort", Kind::Ignored, false},
    {"sparsity", "sparsitysupport", "SparsitySupport", Kind::FalseOnly, false},
    {"sparsity", "sparserep", "SparseRep", Kind::Ignored, false},
    {"sparsity", "optimizedmapping", "OptimizedMapping", Kind::FalseOnly, false},
    {"sparsity", "blocksize", "BlockSize", Kind::Ignored, false},
    {"sparsity", "randomnumbergeneratorseed", "RandomNumberGeneratorSeed", Kind::Ignored, false},
};
constexpr size_t kNumKeys = sizeof(kKeys) / sizeof(kKeys[0]);

struct Section {
  std::string name;
  int line = 0;
};

class Parser {
 public:
  explicit Parser(std::string origin) : m_origin(std::move(origin)) {}

  ScaleSimConfig run(std::istream& in) {
    std::string raw;
    int line_no = 0;
    while (std::getline(in, raw)) {
      ++line_no;
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      parse_line(raw, line_no);
    }
    check_required();
    if (m_cfg.run_name.empty()) m_cfg.run_name = "scalesim_run";
    if (!m_diags.empty()) throw ConfigError(std::move(m_diags));
    return m_cfg;
  }

 private:
  void error(int line, int col, std::string key, std::string message) {
    m_diags.push_back(Diagnostic{m_origin, line, col, std::move(key), std::move(message)});
  }

  void parse_line(const std::string& raw, int line_no) {
    const Field f = trim(raw, 1);
    if (f.text.empty() || f.text.front() == '#' || f.text.front() == ';') return;
    if (f.text.front() == '[') {
      if (f.text.back() != ']') {
        error(line_no, f.col, "", "expected a section header \"[name]\", got " + quoted(f.text));
        return;
      }
      const Field name = trim(f.text.substr(1, f.text.size() - 2), f.col + 1);
      const std::string lname = lower(name.text);
      if (lname != "general" && lname != "architecture_presets" && lname != "run_presets" &&
          lname != "sparsity") {
        error(line_no, name.col, std::string(name.text),
              "unknown section, expected one of general, architecture_presets, run_presets, sparsity");
      }
      // configparser's strict mode (its default) refuses a repeated section, as kneepoint does.
      for (const Section& earlier : m_sections) {
        if (earlier.name == lname) {
          error(line_no, name.col, std::string(name.text),
                "section repeated (first at line " + std::to_string(earlier.line) + ")");
          break;
        }
      }
      m_sections.push_back({lname, line_no});
      m_section = lname;
      return;
    }
    const size_t sep = f.text.find_first_of(":=");
    if (sep == std::string_view::npos) {
      error(line_no, f.col, "", "expected \"key: value\" or \"key = value\", got " + quoted(f.text));
      return;
    }
    const Field key = trim(f.text.substr(0, sep), f.col);
    const Field value = trim(f.text.substr(sep + 1), f.col + static_cast<int>(sep) + 1);
    if (m_section.empty()) {
      error(line_no, key.col, std::string(key.text), "key before any [section] header");
      return;
    }
    const std::string lkey = lower(key.text);
    for (size_t i = 0; i < kNumKeys; ++i) {
      if (m_section == kKeys[i].section && lkey == kKeys[i].key) {
        if (m_seen[i]) {  // configparser: DuplicateOptionError; a silent "last wins" hides typos
          error(line_no, key.col, m_section + "." + kKeys[i].display,
                "key repeated (first at line " + std::to_string(m_seen[i]) + ")");
          return;
        }
        m_seen[i] = line_no;
        set_value(kKeys[i], value, line_no);
        return;
      }
    }
    std::string known;
    for (const KeyDef& d : kKeys) {
      if (m_section != d.section) continue;
      known += known.empty() ? "" : ", ";
      known += d.display;
    }
    error(line_no, key.col, m_section + "." + std::string(key.text),
          "unknown key, expected one of " + known);
  }

  void set_value(const KeyDef& d, const Field& v, int line) {
    const std::string key = std::string(d.section) + "." + d.display;
    const std::string got = v.text.empty() ? "nothing" : quoted(v.text);
    switch (d.kind) {
      case Kind::Text: m_cfg.run_name = std::string(v.text); return;
      case Kind::Positive:
      case Kind::NonNegative: {
        const auto n = parse_int(v.text);
        const int64_t lo = d.kind == Kind::Positive ? 1 : 0;
        if (!n || *n < lo) {
          error(line, v.col, key, std::string("expected an integer >= ") + std::to_string(lo) + ", got " + got);
          return;
        }
        store_int(d.key, *n);
        return;
      }
      case Kind::Bandwidth: {
        // SCALE-Sim allows a comma list (one per interface) and uses the first entry for all.
        const auto n = parse_int(trim(v.text.substr(0, v.text.find(',')), 0).text);
        if (!n || *n < 1) {
          error(line, v.col, key, "expected words per cycle, an integer >= 1, got " + got);
          return;
        }
        m_cfg.bandwidth_words_per_cycle = *n;
        return;
      }
      case Kind::DataflowKey: {
        const std::string s = lower(v.text);
        if (s == "os") m_cfg.dataflow = Dataflow::OutputStationary;
        else if (s == "ws") m_cfg.dataflow = Dataflow::WeightStationary;
        else if (s == "is") m_cfg.dataflow = Dataflow::InputStationary;
        else error(line, v.col, key, "expected os, ws or is, got " + got);
        return;
      }
      case Kind::Ignored: return;
      case Kind::FalseOnly: {
        const std::string s = lower(v.text);
        if (s != "false" && s != "0") {
          error(line, v.col, key, "only False is supported (kneepoint does not model this SCALE-Sim feature), got " + got);
        }
        return;
      }
      case Kind::Interface: {
        const std::string s = lower(v.text);
        if (s == "calc") m_cfg.interface_bandwidth = InterfaceBandwidth::Calc;
        else if (s == "user") m_cfg.interface_bandwidth = InterfaceBandwidth::User;
        else error(line, v.col, key, "expected CALC or USER, got " + got);
        return;
      }
    }
  }

  void store_int(const std::string& k, int64_t n) {
    if (k == "arrayheight") m_cfg.array_height = n;
    else if (k == "arraywidth") m_cfg.array_width = n;
    else if (k == "ifmapsramszkb") m_cfg.ifmap_sram_kb = n;
    else if (k == "filtersramszkb") m_cfg.filter_sram_kb = n;
    else if (k == "ofmapsramszkb") m_cfg.ofmap_sram_kb = n;
    else if (k == "ifmapoffset") m_cfg.ifmap_offset = n;
    else if (k == "filteroffset") m_cfg.filter_offset = n;
    else if (k == "ofmapoffset") m_cfg.ofmap_offset = n;
    else if (k == "memorybanks") m_cfg.memory_banks = n;
  }

  // A missing key points at its section header (its parent), or at the file when the section is
  // missing too.
  void check_required() {
    for (size_t i = 0; i < kNumKeys; ++i) {
      if (!kKeys[i].required || m_seen[i]) continue;
      int line = 0;
      for (const Section& s : m_sections) {
        if (s.name == kKeys[i].section) { line = s.line; break; }
      }
      const std::string key = std::string(kKeys[i].section) + "." + kKeys[i].display;
      error(line, line > 0 ? 1 : 0, key,
            line > 0 ? "missing required key" : "missing required key (no [" + std::string(kKeys[i].section) + "] section)");
    }
  }

  std::string m_origin;
  ScaleSimConfig m_cfg;
  std::string m_section;
  std::vector<Section> m_sections;
  int m_seen[kNumKeys] = {};  // line where each key was set, 0 = not yet
  std::vector<Diagnostic> m_diags;
};

}  // namespace

ScaleSimConfig parse_scalesim_config(std::istream& in, const std::string& origin) {
  return Parser(origin).run(in);
}

ScaleSimConfig read_scalesim_config(const std::string& path) {
  std::istringstream in(scalesim_text::read_bounded_file(path, size_t{4} << 20, "SCALE-Sim config file"));
  return parse_scalesim_config(in, path);
}

}  // namespace kp
