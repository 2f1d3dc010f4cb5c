#pragma once
// User-facing configuration errors. Contract: a Diagnostic names where (origin:line:col, 1-based),
// which dotted key, and what was expected vs found; ConfigError carries every diagnostic of one
// input so the user fixes them all in one pass. The CLI maps ConfigError to exit code 2.
#include <stdexcept>
#include <string>
#include <vector>

namespace kp {

struct Diagnostic {
  std::string origin;  // a file path, or "--set key=value" for a command-line override
  int line = 0;        // 1-based; 0 = no position known
  int col = 0;
  std::string key;     // dotted key, may be empty
  std::string message;

  // GCC style: "origin:line:col: error: key: message".
  std::string format() const;
};

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  ConfigError(std::string origin, std::string message);  // a single position-less error
  const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

 private:
  std::vector<Diagnostic> m_diagnostics;
};

}  // namespace kp
