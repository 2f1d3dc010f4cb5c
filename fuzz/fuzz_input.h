#pragma once
// What every fuzz target shares. Contract: input_file() writes the fuzzer's bytes to a file named
// `name` in DIR/in, DIR being a folder of this process's own (made once under $TMPDIR), so readers
// that take a path see the input as a user's file; each input overwrites the last. DIR/hw_configs
// and DIR/workloads link to the shipped folders and DIR/in links to each shipped workload file, so
// that the relative paths of the seeds (a study's ../workloads/x.yaml, a workload's `base:` and
// curve `path:`) resolve and the parsers go past them.
// A reader's documented user error (kp::ConfigError) is an expected outcome of a bad input:
// targets catch only that, so a crash, an abort, a sanitizer report or any other exception is a
// finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace kp::fuzz {

inline const std::string& scratch_dir() {
  namespace fs = std::filesystem;
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/kp_fuzz_XXXXXX";
    if (!mkdtemp(pattern.data())) std::abort();
    const fs::path src(KP_SOURCE_DIR), root(pattern);
    fs::create_directory(root / "in");
    for (const char* d : {"hw_configs", "workloads"}) fs::create_directory_symlink(src / d, root / d);
    for (const auto& e : fs::directory_iterator(src / "workloads"))
      fs::create_symlink(e.path(), root / "in" / e.path().filename());
    return (root / "in").string();
  }();
  return dir;
}

inline std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) std::abort();
  return path;
}

inline std::string input_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace kp::fuzz
