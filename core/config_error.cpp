#include "core/config_error.h"

namespace kp {
namespace {

std::string join(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    if (!out.empty()) out += '\n';
    out += d.format();
  }
  return out;
}

}  // namespace

std::string Diagnostic::format() const {
  std::string out = origin;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(col);
  out += ": error: ";
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), m_diagnostics(std::move(diagnostics)) {}

ConfigError::ConfigError(std::string origin, std::string message)
    : ConfigError(std::vector<Diagnostic>{Diagnostic{std::move(origin), 0, 0, "", std::move(message)}}) {}

}  // namespace kp
