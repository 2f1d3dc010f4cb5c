#include <gtest/gtest.h>

#include "core/units.h"

namespace kp {

TEST(Units, Sizes) {
  EXPECT_DOUBLE_EQ(parse_quantity("32 MiB", Dim::Bytes), 32.0 * 1048576);
  EXPECT_DOUBLE_EQ(parse_quantity("64 KB", Dim::Bytes), 64e3);
  EXPECT_DOUBLE_EQ(parse_quantity("2 KiB", Dim::Bytes), 2048);
  EXPECT_DOUBLE_EQ(parse_quantity("16 GB", Dim::Bytes), 16e9);
  EXPECT_DOUBLE_EQ(parse_quantity("1 TiB", Dim::Bytes), 1099511627776.0);
  EXPECT_DOUBLE_EQ(parse_quantity("100 B", Dim::Bytes), 100);
}

TEST(Units, BandwidthBytesAndBits) {
  EXPECT_DOUBLE_EQ(parse_quantity("900 GB/s", Dim::BytesPerSecond), 900e9);
  EXPECT_DOUBLE_EQ(parse_quantity("50 Gb/s", Dim::BytesPerSecond), 6.25e9);
  EXPECT_DOUBLE_EQ(parse_quantity("400 Gbit/s", Dim::BytesPerSecond), 50e9);
  EXPECT_DOUBLE_EQ(parse_quantity("1 GiB/s", Dim::BytesPerSecond), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_quantity("3.35 TB/s", Dim::BytesPerSecond), 3.35e12);
}

TEST(Units, FrequencyTimeEnergyThroughput) {
  EXPECT_DOUBLE_EQ(parse_quantity("1.4 GHz", Dim::Hertz), 1.4e9);
  EXPECT_DOUBLE_EQ(parse_quantity("940 MHz", Dim::Hertz), 940e6);
  EXPECT_DOUBLE_EQ(parse_quantity("2 us", Dim::Seconds), 2e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("500 ns", Dim::Seconds), 500e-9);
  EXPECT_DOUBLE_EQ(parse_quantity("3 ps", Dim::Seconds), 3e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("0.3 pJ", Dim::Joules), 0.3e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("20 fJ", Dim::Joules), 20e-15);
  EXPECT_DOUBLE_EQ(parse_quantity("123 TFLOP/s", Dim::FlopsPerSecond), 123e12);
  EXPECT_DOUBLE_EQ(parse_quantity("1e3 Hz", Dim::Hertz), 1000);
}

TEST(Units, BareNumberIsAnErrorThatListsUnits) {
  try {
    parse_quantity("900", Dim::BytesPerSecond);
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_STREQ(e.what(),
                 "expected a bandwidth with a unit (B/s, KB/s, MB/s, GB/s, GiB/s, TB/s, Mb/s, Gb/s, "
                 "Gbit/s, Tb/s), got \"900\"");
  }
}

TEST(Units, UnknownUnitNamesIt) {
  try {
    parse_quantity("1.4 Ghz", Dim::Hertz);
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_STREQ(e.what(), "unknown unit \"Ghz\": expected a frequency with a unit (Hz, kHz, MHz, GHz), got \"1.4 Ghz\"");
  }
}

TEST(Units, WrongDimensionIsAnError) {
  EXPECT_THROW(parse_quantity("32 MiB", Dim::BytesPerSecond), UnitError);
  EXPECT_THROW(parse_quantity("GB/s", Dim::BytesPerSecond), UnitError);
  EXPECT_THROW(parse_quantity("", Dim::Bytes), UnitError);
}

}  // namespace kp
