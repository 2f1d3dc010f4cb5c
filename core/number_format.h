#pragma once
// One double as text, the way every report, CSV and JSON writer of the project spells numbers.
// Contract: finite values go through printf's `format` (one conversion of a double); infinities
// are "inf" / "-inf" and NaN "nan" (printf's spelling varies by libc and locale-free code wants
// one); json_number writes null for them instead, as JSON has neither.
#include <string>

namespace kp {

std::string format_double(double v, const char* format);
// %.<digits>g: `digits` significant digits, trailing zeros dropped.
std::string format_sig(double v, int digits);
// The shortest of %.15g, %.16g, %.17g that reads back to the same double.
std::string format_round_trip(double v);
// `digits` significant digits, or null when not finite.
std::string json_number(double v, int digits);

}  // namespace kp
