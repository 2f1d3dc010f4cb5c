#pragma once
// A scratch directory for one test process: <gtest TempDir>/<prefix>_<pid>, emptied the first
// time the process asks for it. The tests name their folders by process id, the kernel reuses
// ids, and nothing removes the folders after a run: a later process with a reused id found an
// earlier one's files (CurveMpi failed with "a journal of an earlier measurement exists" after
// some hundred runs had left their folders in /tmp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

namespace kp::test {

inline std::string process_scratch_dir(const std::string& prefix) {
  static std::set<std::string> emptied;  // this process's folders, emptied once each
  const std::filesystem::path d =
      std::filesystem::path(::testing::TempDir()) / (prefix + "_" + std::to_string(::getpid()));
  if (emptied.insert(d.string()).second) std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

}  // namespace kp::test
