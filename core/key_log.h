#pragma once
// A listener for the keys the parsers ask for, so that the key reference (docs/keys.md, written by
// tools/keys_doc) is made from the parsers themselves and cannot drift from them. Contract: while a
// log is set, every ConfigMap getter reports the key it is asked for (present in the file or not:
// an optional key the file leaves out is still accepted) with its type, bounds and default; the
// same key may be reported many times. nullptr (the default) turns reporting off, and then a getter
// costs one pointer test. Not thread-safe: only the single-threaded reference generator sets it.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/units.h"

namespace kp {

struct KeyUse {
  std::string origin;    // the document's path (or the name a parsed text was given)
  std::string key;       // dotted, list entries as written: network.layers[3].units
  std::string type;      // "integer", "bandwidth (B/s, ...)", "one of sgd, adam", "value" (read by hand)
  std::string range;     // "[1, 4096]"; empty where there is none
  std::string fallback;  // the default as text; empty for a key without one
  bool required = false;
};

class KeyLog {
 public:
  virtual ~KeyLog() = default;
  virtual void note(const KeyUse& use) = 0;
};

// Types and bounds as the key reference prints them: "bandwidth (B/s, ...)", "1 MHz" (0 as "0"),
// "[1, 2^12 (4096)]", "0.1", "a, b, c".
std::string quantity_type(Dim dim);
std::string quantity_text(double si, Dim dim);
std::string int_range(int64_t min_value, int64_t max_value);
std::string number_text(double v);
std::string options_text(std::initializer_list<const char*> options);

void set_key_log(KeyLog* log);
KeyLog* key_log();

// Turns the log off for its lifetime: a getter built on another (quantity_or on quantity) reports
// its key once, as optional, and the inner call stays silent.
class KeyLogPause {
 public:
  KeyLogPause() : m_saved(key_log()) { set_key_log(nullptr); }
  ~KeyLogPause() { set_key_log(m_saved); }
  KeyLogPause(const KeyLogPause&) = delete;
  KeyLogPause& operator=(const KeyLogPause&) = delete;

 private:
  KeyLog* m_saved;
};

}  // namespace kp
