#pragma once
// Helpers shared by the CLI verbs. Contract: parse_options() turns Boost.Program_options errors
// into ConfigError (exit 2) naming the verb; list parsing accepts "1,2,4" or "1..4096" (powers of
// two); a seed is an integer >= 0; wants_help() lets every verb print its usage on --help.
#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

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

std::vector<int64_t> parse_int_list(const std::string& option, const std::string& text);

// --seed, declared as po::value<int64_t>(): an integer >= 0, as the YAML specs' seeds are. Boost
// would read "-1" into a uint64_t as 2^64 - 1 without a word, so seeds are never parsed unsigned.
// Returns `fallback` when the option was not given.
uint64_t seed_option(const po::variables_map& vm, uint64_t fallback);

}  // namespace kp
