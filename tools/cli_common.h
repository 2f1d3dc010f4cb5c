#pragma once
// Helpers shared by the CLI verbs. Contract: parse_options() turns Boost.Program_options errors
// into ConfigError (exit 2) naming the verb; list parsing accepts "1,2,4" or "1..4096" (powers of
// two); a seed is an integer >= 0; wants_help() lets every verb print its usage on --help.
#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/json_writer.h"
#include "sim/update_model.h"
#include "tools/commands.h"

namespace kp {

namespace po = boost::program_options;

// The hidden argument of `kneepoint --complete VERB` (main.cpp): given alone, parse_options()
// prints the verb's options for the bash completion instead of parsing, one a line: the name
// (--name), then for an option that takes a value a tab and its choices ("a b c", from a
// description that starts "a|b|c") or "*".
inline const char* const kCompleteOptionsArg = "--kneepoint-complete-options";

// Returns false when --help (or kCompleteOptionsArg) was given (usage already printed to stdout).
bool parse_options(const std::string& verb, const std::string& usage, const Args& args,
                   po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr);

// Integers in [1, max_value] (a plausibility limit, core/limits.h; stated in the error).
std::vector<int64_t> parse_int_list(const std::string& option, const std::string& text, int64_t max_value);

// --jobs: an integer in [1, 4 x the cores]; more threads than that only thrash, and tens of
// thousands fail to start. Throws ConfigError naming the option and the reason.
int jobs_option(const std::string& option, int64_t jobs);
// An integer option in [min_value, max_value]; throws ConfigError naming the option otherwise.
int64_t checked_option(const std::string& option, int64_t value, int64_t min_value, int64_t max_value);

// --seed, declared as po::value<int64_t>(): an integer >= 0, as the YAML specs' seeds are. Boost
// would read "-1" into a uint64_t as 2^64 - 1 without a word, so seeds are never parsed unsigned.
// Returns `fallback` when the option was not given.
uint64_t seed_option(const po::variables_map& vm, uint64_t fallback);

// "71.3 GiB of 80 GiB: weights 16 GiB, gradients 16 GiB, optimizer state 24 GiB, ...".
std::string memory_text(const MemoryParts& m);
// "memory_GiB": {"total", "capacity", "weights", "gradients", "optimizer", "activations", "workspace"}.
void write_memory_json(JsonWriter& j, const MemoryParts& m);

}  // namespace kp
