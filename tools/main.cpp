// kneepoint: how long training takes on hardware that does not exist yet, and where more chips
// stop paying off. Exit codes: 0 ok, 2 user error (bad input, with file:line:col); internal bugs
// abort with a message.
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

#include "core/config_error.h"
#include "core/kinds.h"
#include "tools/verbs.h"

namespace {

void usage(std::ostream& out) {
  out << "usage: kneepoint <verb> [options]   (kneepoint <verb> --help for each)\n\nverbs:";
  for (const kp::Verb& v : kp::verbs()) out << " " << v.name;
  out << "\n\nkneepoint --version | --list-kinds | --help\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  const std::string verb = argv[1];
  if (verb == "--help" || verb == "-h") {
    usage(std::cout);
    return 0;
  }
  if (verb == "--version") {
    std::cout << "kneepoint 0.1.0\n";
    return 0;
  }
  if (verb == "--list-kinds") {
    for (const kp::KindInfo& k : kp::all_kinds())
      std::cout << k.area << "\t" << k.kind << "\t" << k.description << "\n";
    return 0;
  }
  const kp::Args args(argv + 2, argv + argc);
  for (const kp::Verb& v : kp::verbs()) {
    if (verb != v.name) continue;
    try {
      return v.run(args);
    } catch (const kp::ConfigError& e) {
      std::cerr << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "kneepoint: internal error: " << e.what() << "\n";
      std::abort();
    }
  }
  std::cerr << "kneepoint: unknown verb \"" << verb << "\"\n";
  usage(std::cerr);
  return 2;
}
