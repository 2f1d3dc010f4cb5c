#pragma once
// A minimal streaming JSON writer (objects, arrays, strings, numbers, null). Contract: the caller
// nests begin/end correctly (checked, abort on misuse: an internal bug); doubles are written with
// round-trip precision and non-finite values as null, since JSON has no infinity.
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

class JsonWriter {
 public:
  // `spaced`: ": " after keys and ", " between items (the CLI's human-readable one-line JSON).
  explicit JsonWriter(bool spaced = false) : m_spaced(spaced) {}
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(int64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();
  const std::string& str() const { return m_out; }

 private:
  void before_value();
  std::string m_out;
  std::vector<bool> m_first;  // per open container: nothing written yet
  bool m_after_key = false;
  bool m_spaced = false;
};

std::string json_escape(const std::string& s);

}  // namespace kp
