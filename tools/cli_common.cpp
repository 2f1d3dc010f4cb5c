#include "tools/cli_common.h"

#include <cstdio>

#include <algorithm>
#include <iostream>
#include <regex>
#include <thread>
#include <sstream>

#include "core/config_error.h"
#include "core/units.h"
#include "models/time_model/time_model.h"

namespace kp {
namespace {

void print_completion(const po::options_description& desc) {
  static const std::regex choices(R"(^\s*([a-z0-9_]+(\s*\|\s*[a-z0-9_]+)+))");
  for (const auto& o : desc.options()) {
    std::cout << "--" << o->long_name();
    if (o->semantic()->max_tokens() > 0) {
      std::smatch m;
      const std::string& text = o->description();
      std::string values = std::regex_search(text, m, choices) ? m[1].str() : "*";
      values = std::regex_replace(values, std::regex(R"(\s*\|\s*)"), " ");
      std::cout << "\t" << values;
    }
    std::cout << "\n";
  }
}

}  // namespace

bool parse_options(const std::string& verb, const std::string& usage, const Args& args,
                   po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional) {
  desc.add_options()("help,h", "print this help");
  if (args.size() == 1 && args[0] == kCompleteOptionsArg) {
    print_completion(desc);
    return false;
  }
  try {
    po::command_line_parser parser(args);
    parser.options(desc);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << desc << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError("kneepoint " + verb, std::string(e.what()) + " (see kneepoint " + verb + " --help)");
  }
  return true;
}

std::vector<int64_t> parse_int_list(const std::string& option, const std::string& text, int64_t max_value) {
  const auto dots = text.find("..");
  auto to_int = [&](const std::string& s) -> int64_t {
    int64_t v = 0;
    if (!parse_int64(s, v) || v < 1 || v > max_value)
      throw ConfigError("--" + option, "expected integers in [1, " + format_limit(max_value) +
                                           "] as \"1,2,4\" or \"1..4096\", got \"" + text + "\"");
    return v;
  };
  if (dots != std::string::npos) {
    const int64_t from = to_int(text.substr(0, dots)), to = to_int(text.substr(dots + 2));
    if (to < from) throw ConfigError("--" + option, "expected from <= to in \"" + text + "\"");
    return powers_of_two(from, to);
  }
  std::vector<int64_t> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(to_int(item));
  if (out.empty()) throw ConfigError("--" + option, "expected a non-empty list");
  return out;
}

int jobs_option(const std::string& option, int64_t jobs) {
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  if (jobs < 1 || jobs > 4 * cores)
    throw ConfigError(option, "expected an integer in [1, " + std::to_string(4 * cores) + "] (at most 4 x the " +
                                  std::to_string(cores) + " cores: more threads only contend), got " +
                                  std::to_string(jobs));
  return static_cast<int>(jobs);
}

int64_t checked_option(const std::string& option, int64_t value, int64_t min_value, int64_t max_value) {
  if (value < min_value || value > max_value)
    throw ConfigError(option, "expected an integer in [" + std::to_string(min_value) + ", " + format_limit(max_value) +
                                  "], got " + std::to_string(value));
  return value;
}

uint64_t seed_option(const po::variables_map& vm, uint64_t fallback) {
  if (!vm.count("seed")) return fallback;
  const int64_t seed = vm["seed"].as<int64_t>();
  if (seed < 0) throw ConfigError("--seed", "expected an integer >= 0, got " + std::to_string(seed));
  return static_cast<uint64_t>(seed);
}

namespace {
double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }
}  // namespace

std::string memory_text(const MemoryParts& m) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%.3g GiB of %.3g GiB: weights %.3g GiB, gradients %.3g GiB, optimizer state %.3g GiB, "
                "activations %.3g GiB, workspace %.3g GiB",
                gib(m.total()), gib(m.capacity), gib(m.weights), gib(m.gradients), gib(m.optimizer),
                gib(m.activations), gib(m.workspace));
  return buf;
}

void write_memory_json(JsonWriter& j, const MemoryParts& m) {
  j.key("memory_GiB").begin_object();
  j.key("total").value(gib(m.total())).key("capacity").value(gib(m.capacity));
  j.key("weights").value(gib(m.weights)).key("gradients").value(gib(m.gradients));
  j.key("optimizer").value(gib(m.optimizer)).key("activations").value(gib(m.activations));
  j.key("workspace").value(gib(m.workspace)).end_object();
}

}  // namespace kp
