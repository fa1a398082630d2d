// Tests of the rest between two configurations' measurements (measure/rest.hpp), on the host.
#include "measure/rest.hpp"

#include <gtest/gtest.h>

namespace cutune {
namespace {

using std::chrono::microseconds;

TEST(Rest, AsLongAsTheMeasurementKeptTheGpuBusy) {
  EXPECT_EQ(detail::rest_after({0.6, 0.6, 0.6}), microseconds(1800));
  EXPECT_EQ(detail::rest_after({12.5}), microseconds(12500));
}

TEST(Rest, NoneAfterAShortMeasurement) {
  EXPECT_EQ(detail::rest_after({}), microseconds(0));
  EXPECT_EQ(detail::rest_after({0.01, 0.02, 0.01}), microseconds(0));
  EXPECT_EQ(detail::rest_after({detail::kRestAbove * 0.99}), microseconds(0));
  EXPECT_GT(detail::rest_after({detail::kRestAbove}), microseconds(0));
}

}  // namespace
}  // namespace cutune
