// The sample spec the spec tests share (a tiled transpose), and their helpers: parse it, edit it and read the error.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/error.hpp"
#include "cutune/spec.hpp"

namespace cutune::testing::spec_sample {

using Json = nlohmann::ordered_json;

inline constexpr const char* kSpec = R"json({
  "name": "transpose",
  "description": "tiled transpose",
  "source": "transpose.cu",
  "kernel": "transpose",
  "shape": ["M", "N"],
  "parameters": {
    "TILE": {"values": [16, 32, 64], "default": 32, "description": "tile edge"},
    "ROWS": [8, 4, 2],
    "PAD": [0, 1]
  },
  "constraints": ["TILE % ROWS == 0"],
  "block": ["TILE", "ROWS"],
  "grid": ["ceil_div(N, TILE)", "ceil_div(M, TILE)"],
  "shared_memory": "TILE * (TILE + PAD) * 4",
  "arguments": [
    {"name": "out", "type": "float*", "size": "M * N", "output": true},
    {"name": "in", "type": "const float*", "size": "M * N", "fill": "zero"},
    {"name": "m", "type": "int", "value": "M"},
    {"name": "n", "type": "long long", "value": "N"}
  ],
  "reference": {"kernel": "transpose_reference", "block": [32, 8], "grid": ["ceil_div(N, 32)", "ceil_div(M, 8)"]},
  "tolerance": {"atol": 0.5},
  "metric": {"bytes": "8 * M * N"},
  "compile_options": ["--use_fast_math"]
})json";

inline constexpr const char* kSource = "extern \"C\" __global__ void transpose() {}\n";

inline KernelSpec parse(const std::string& text) { return KernelSpec::from_json(text, kSource, "transpose.cu"); }

// The SpecError message after `edit` changes the sample spec.
inline std::string error_after(const std::function<void(Json&)>& edit) {
  Json j = Json::parse(kSpec);
  edit(j);
  try {
    parse(j.dump());
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

template <typename Error, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace cutune::testing::spec_sample
