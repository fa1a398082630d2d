// libFuzzer target for the expression language: Expr parsing, binding and evaluation, and eval_list/eval_number.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/expr.hpp"

namespace {

// A printed value must read back as itself: the canonical form is what specs, logs and the database hold.
void check_round_trip(const cutune::Value& v) {
  if (v.is_float() && !std::isfinite(v.as_double())) return;  // inf and nan print as names, by design
  const std::string text = v.str();
  const cutune::Value back = cutune::Expr::parse(text).eval({});
  if (!(back == v) || back.is_float() != v.is_float()) {
    std::fprintf(stderr, "value %s reads back as %s\n", text.c_str(), back.str().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // Per-configuration expressions: every free name bound, with integers and a float among them so that both
  // arithmetic paths run.
  try {
    cutune::Expr e = cutune::Expr::parse(text);
    e.bind(e.names());
    std::vector<cutune::Value> values;
    for (std::size_t i = 0; i < e.names().size(); ++i) {
      values.push_back(i % 3 == 2 ? cutune::Value(0.5 * static_cast<double>(i)) : cutune::Value(std::int64_t(i) - 1));
    }
    check_round_trip(e.eval(values));
  } catch (const cutune::Error&) {
    // A clear error is the expected outcome for most inputs.
  }

  // The list forms (T1 parameter values and sizes), with lists bound the way the T1 reader binds them. eval_number()
  // is eval_list() with another last check; evaluating both would only halve the speed on lists of 2^24 values.
  const cutune::ListBindings lists{{"ProblemSize", {std::int64_t{4096}, std::int64_t{64}}},
                                   {"block_size_x", {std::int64_t{16}, std::int64_t{32}, std::int64_t{64}}}};
  try {
    const std::vector<cutune::Value> values = cutune::eval_list(text, lists);
    for (std::size_t i = 0; i < values.size() && i < 64; ++i) check_round_trip(values[i]);
  } catch (const cutune::Error&) {
  }
  return 0;
}
