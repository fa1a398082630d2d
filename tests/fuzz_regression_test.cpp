// Inputs the fuzz targets (fuzz/) found to crash, hang or escape the error hierarchy, each with the error it now gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/expr.hpp"
#include "cutune/kt_cache.hpp"
#include "cutune/spec.hpp"
#include "cutune/t1.hpp"

namespace {

// The message of the cutune error `f` throws, or "(no error)"; any other exception fails the test, as it would end
// `tune` with no clear message.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cutune::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a cutune error: " << e.what();
    return "";
  }
  return "(no error)";
}

// A number beyond double's range made nlohmann::json throw out_of_range, which is no parse_error.
TEST(FuzzRegression, KtCacheNumberOutOfRange) {
  const std::string text = R"({"tune_params_keys": ["a"], "cache": {"1": {"a": 1, "time": 1e400}}})";
  const std::string message = error_of([&] { cutune::parse_kt_cache(text, "big.json"); });
  EXPECT_NE(message.find("big.json: not a Kernel Tuner cache: "), std::string::npos) << message;
  EXPECT_NE(message.find("1e400"), std::string::npos) << message;
}

}  // namespace
