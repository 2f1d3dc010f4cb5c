#include "core/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/number_format.h"

namespace kp {

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::before_value() {
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  if (!m_first.empty()) {
    if (!m_first.back()) m_out += m_spaced ? ", " : ",";
    m_first.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  m_out += '{';
  m_first.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  if (m_first.empty()) std::abort();
  m_first.pop_back();
  m_out += '}';
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  before_value();
  m_out += '[';
  m_first.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  if (m_first.empty()) std::abort();
  m_first.pop_back();
  m_out += ']';
  return *this;
}
JsonWriter& JsonWriter::key(const std::string& k) {
  before_value();
  m_out += json_escape(k) + (m_spaced ? ": " : ":");
  m_after_key = true;
  return *this;
}
JsonWriter& JsonWriter::value(const std::string& v) {
  before_value();
  m_out += json_escape(v);
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  before_value();
  if (!std::isfinite(v)) {
    m_out += "null";
    return *this;
  }
  m_out += format_round_trip(v);
  return *this;
}
JsonWriter& JsonWriter::value(int64_t v) {
  before_value();
  m_out += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(bool v) {
  before_value();
  m_out += v ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null() {
  before_value();
  m_out += "null";
  return *this;
}

}  // namespace kp
