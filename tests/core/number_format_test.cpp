// Number spelling (core/number_format.h): printf formats, the non-finite spellings, the shortest
// round trip, and JSON's null; and JsonWriter's spaced style.
#include "core/number_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/json_writer.h"

namespace kp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(NumberFormat, PrintfFormatsAndNonFiniteSpellings) {
  EXPECT_EQ(format_double(3.14159, "%.3f"), "3.142");
  EXPECT_EQ(format_double(2048.4, "%.0f"), "2048");
  EXPECT_EQ(format_double(kInf, "%.3f"), "inf");
  EXPECT_EQ(format_double(-kInf, "%.0f"), "-inf");
  EXPECT_EQ(format_double(std::nan(""), "%.3f"), "nan");
  EXPECT_EQ(format_sig(123456.789, 4), "1.235e+05");
  EXPECT_EQ(format_sig(0.000125, 9), "0.000125");
  EXPECT_EQ(format_sig(-kInf, 9), "-inf");
}

TEST(NumberFormat, RoundTripIsShortestThatReadsBack) {
  EXPECT_EQ(format_round_trip(0.05), "0.05");
  EXPECT_EQ(format_round_trip(0.1 + 0.2), "0.30000000000000004");  // needs all 17 digits
  EXPECT_EQ(format_round_trip(1.0 / 3.0), "0.3333333333333333");   // 16 digits
  EXPECT_EQ(format_round_trip(1e300), "1e+300");
  for (double v : {0.1 + 0.2, 1.0 / 3.0, 6.02214076e23, 5e-324, -2.5})
    EXPECT_EQ(std::strtod(format_round_trip(v).c_str(), nullptr), v) << v;
}

TEST(NumberFormat, JsonNumberIsNullWhenNotFinite) {
  EXPECT_EQ(json_number(0.123456789012, 10), "0.123456789");
  EXPECT_EQ(json_number(kInf, 10), "null");
  EXPECT_EQ(json_number(std::nan(""), 10), "null");
}

TEST(JsonWriter, SpacedStyleAndEscapes) {
  JsonWriter compact, spaced(true);
  for (JsonWriter* j : {&compact, &spaced})
    j->begin_object().key("w").value("a\"b").key("v").begin_array().value(0.05).value(kInf).end_array().end_object();
  EXPECT_EQ(compact.str(), R"({"w":"a\"b","v":[0.05,null]})");
  EXPECT_EQ(spaced.str(), R"({"w": "a\"b", "v": [0.05, null]})");
}

}  // namespace
}  // namespace kp
