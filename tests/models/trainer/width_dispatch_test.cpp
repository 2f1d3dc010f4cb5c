// with_width (width_dispatch.h): each run-time width reaches the instantiation of that width,
// and a width outside the range aborts, naming the caller.
#include <gtest/gtest.h>

#include <cstdint>

#include "models/trainer/width_dispatch.h"

namespace kp::trainer_detail {
namespace {

TEST(WithWidth, CallsTheInstantiationOfThatWidth) {
  for (int64_t n = 3; n <= 9; ++n) {
    int64_t got = 0, calls = 0;
    with_width<3, 9>(n, "test", [&](auto w) {
      static_assert(decltype(w)::value >= 3 && decltype(w)::value <= 9);
      got = decltype(w)::value;
      ++calls;
    });
    EXPECT_EQ(got, n);
    EXPECT_EQ(calls, 1);
  }
}

void dispatch(int64_t n) {
  with_width<3, 9>(n, "the caller", [](auto) {});
}

TEST(WithWidthDeathTest, AbortsOutsideTheRange) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(dispatch(10), "the caller: width 10 outside");
  EXPECT_DEATH(dispatch(2), "width 2 outside \\[3, 9\\]");
}

}  // namespace
}  // namespace kp::trainer_detail
