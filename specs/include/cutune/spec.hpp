// A kernel's declarative spec: the one description format of built-in and user kernels (DESIGN.md, decision 1).
//
// A spec is a JSON file next to its CUDA source. Every expression is a string in the expression language
// (expr.hpp) or a plain number, over the parameter names and the shape's dimension names:
//
//   {
//     "name": "transpose",                       // kernel family, used on the command line and in the database
//     "description": "one line",
//     "source": "transpose.cu",                  // relative to the spec file
//     "kernel": "transpose",                     // __global__ function to tune (extern "C" or C++ linkage)
//     "shape": ["M", "N"],                       // dimension names; a shape is written 8192x4096 in this order
//     "parameters": {                            // in this order; values are numbers
//       "TILE": {"values": [16, 32, 64], "default": 32, "description": "tile edge"},
//       "VEC": [1, 2, 4]                         // short form: default is the first value
//     },
//     "constraints": ["TILE % ROWS == 0"],       // every one must hold for a configuration to be valid
//     "block": ["TILE // VEC", "ROWS"],          // 1 to 3 entries, missing ones are 1
//     "grid": ["ceil_div(N, TILE)", "ceil_div(M, TILE)"],
//     "shared_memory": "TILE * (TILE + PAD) * 4",// dynamic shared memory in bytes, default 0
//     "arguments": [                             // in the kernel's parameter order
//       {"name": "out", "type": "float*", "size": "M * N", "output": true},   // fill defaults to "poison"
//       {"name": "in", "type": "const float*", "size": "M * N", "fill": "random"},
//       {"name": "M", "type": "int", "value": "M"}
//     ],
//     "reference": {"kernel": "transpose_reference", "block": [32, 8], "grid": ["ceil_div(N, 32)", "ceil_div(M, 8)"]},
//                                                // or {"configuration": {"TILE": 16, ...}}: the kernel itself at that
//                                                // configuration (unnamed parameters take their defaults)
//     "tolerance": {"atol": 0, "rtol": 0},       // |out - ref| <= atol + rtol * |ref|, default exact; expressions
//                                                // over the shape's names, e.g. {"atol": "1e-6 * K"}
//     "metric": {"bytes": "8 * M * N"},          // or {"flops": "..."}: gives GB/s or GFLOP/s; a FLOP metric may
//                                                // add "peak": "fp32" (default), "fp64", "tf32_tensor" or
//                                                // "f16_tensor" (FP16 and BF16): the rate the report compares with
//     "compile_options": ["--use_fast_math"],    // added to NVRTC's options
//     "pipeline": {...}                          // optional: a host pipeline of chunks x streams (pipeline.hpp)
//   }
//
// Parameters reach the source as #defines; the source must also compile on its own with default values.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/expr.hpp"

namespace cutune {

struct PipelineSpec;

/// A problem size: one extent per dimension name of the spec, printed as 8192x4096.
struct Shape {
  std::vector<std::int64_t> dims;
  std::string str() const;
  friend bool operator==(const Shape&, const Shape&) = default;
};

/// One point of a space: a value per parameter, in the spec's parameter order.
struct Config {
  std::vector<Value> values;
  friend bool operator==(const Config&, const Config&) = default;
};

struct Parameter {
  std::string name;
  std::vector<Value> values;
  Value default_value;
  std::string description;
};

/// Element types of buffers and scalars. BFloat16 and Float16 are CUDA's __nv_bfloat16 and __half.
enum class ElementType { Float32, Float64, Int32, Int64, UInt32, BFloat16, Float16 };
inline constexpr std::size_t kElementTypes = 7;
std::size_t element_size(ElementType t);
std::string_view to_string(ElementType t);

/// Initial content of a buffer. Outputs default to Poison (NaN, all bits set), so unwritten elements fail verification.
enum class Fill { Random, Zero, One, Poison };

/// One kernel argument: a device buffer (pointer type) or a scalar passed by value.
struct Argument {
  std::string name;
  bool is_buffer = false;
  ElementType type = ElementType::Float32;
  Expr size;            ///< buffers: number of elements
  Expr value;           ///< scalars: the value
  Fill fill = Fill::Random;
  bool output = false;  ///< outputs are poisoned before each run and compared with the reference's
};

/// Launch geometry as expressions; see resolve() for numbers.
struct Geometry {
  std::array<Expr, 3> block;
  std::array<Expr, 3> grid;
  Expr shared_memory;  ///< dynamic shared memory, bytes
};

/// Launch geometry in numbers.
struct Launch {
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::int64_t shared_memory = 0;
  std::int64_t threads() const { return block[0] * block[1] * block[2]; }
};

/// Verification bounds in numbers, for one shape.
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

/// Verification bounds as expressions over the shape's names (error grows with a reduction's length).
struct ToleranceRule {
  Expr atol;
  Expr rtol;
};

struct Metric {
  enum class Kind { Bytes, Flops } kind = Kind::Bytes;
  /// Which of the device's FLOP rates a FLOP metric is a fraction of: FP32 or FP64 FMA units, or the tensor cores'
  /// dense rate for TF32 or for 16-bit (FP16, BF16) inputs.
  enum class Peak { Fp32, Fp64, Tf32Tensor, F16Tensor } peak = Peak::Fp32;
  Expr amount;
  std::string_view unit() const { return kind == Kind::Bytes ? "GB/s" : "GFLOP/s"; }
};

/// A kernel and everything needed to tune it. All expressions are bound to scope_names().
struct KernelSpec {
  std::string name;
  std::string description;
  std::string kernel;        ///< function name
  std::string source;        ///< CUDA source text
  std::string source_name;   ///< file name of the source, for compiler messages
  std::vector<std::string> shape_names;
  std::vector<Parameter> parameters;
  std::vector<Expr> constraints;
  Geometry launch;
  std::string reference_kernel;  ///< empty when reference_config is set
  Geometry reference_launch;
  /// Set when the reference is this spec's own `kernel` at this configuration instead of a reference kernel: then
  /// reference_kernel is empty, reference_launch is a copy of `launch` (resolve it at this configuration) and the
  /// reference compiles with defines(*reference_config). The configuration satisfies every shape-free constraint.
  std::optional<Config> reference_config;
  std::vector<Argument> arguments;
  ToleranceRule tolerance;
  Metric metric;
  std::vector<std::string> compile_options;
  /// Set when the spec describes a host pipeline around its kernel (cutune/pipeline.hpp); shared, never changed.
  std::shared_ptr<const PipelineSpec> pipeline;
  std::string hash;          ///< 16 hex digits over the source and the spec text: the kernel's version
  std::string json;          ///< the spec text: with source and source_name, from_json() rebuilds this spec

  /// Parses a spec; `source` is the CUDA text it names. Throws SpecError naming the field at fault.
  static KernelSpec from_json(std::string_view spec_text, std::string source, std::string source_name);
  /// Reads a spec file and the source it names (relative to the spec's folder).
  static KernelSpec load(const std::filesystem::path& spec_file);

  /// Parameter names, then shape names: the slots every expression is bound to.
  std::vector<std::string> scope_names() const;
  /// The values for scope_names(): the configuration's, then the shape's (0 for each dimension when absent).
  std::vector<Value> scope(const Config& config, const Shape* shape) const;

  Config default_config() const;
  /// Canonical form "TILE=32,VEC=4" in parameter order: used in logs, the database and the CLI.
  std::string format(const Config& config) const;
  /// Inverse of format(); throws InputError on unknown or missing names and values outside the parameter's list.
  Config parse_config(std::string_view text) const;
  /// Parses "8192x4096"; throws InputError unless there is one positive integer per dimension.
  Shape parse_shape(std::string_view text) const;
  /// The "-DNAME=VALUE" options for a configuration.
  std::vector<std::string> defines(const Config& config) const;

  Launch resolve(const Geometry& geometry, const Config& config, const Shape& shape) const;
  /// Adds a constraint of the user's (the command line's --where, e.g. "SPLITK == 1"): only part of the space is
  /// searched, the kernel is the same, so its version (hash) does not change. Throws InputError naming `text` on a
  /// syntax error or an unknown name.
  void restrict_to(std::string_view text);
  /// The tolerance at a shape; throws InputError when an expression is negative there.
  Tolerance tolerance_at(const Shape& shape) const;
  /// The metric's amount (bytes or FLOPs) for a shape.
  double metric_amount(const Shape& shape) const;
};

/// Why `config` (NAME=VALUE text from a database or a file) is not one of the spec's valid configurations at
/// `shape`: an unknown or missing parameter, a value not among the parameter's, a constraint that fails; nullopt
/// when it is valid.
std::optional<std::string> invalid_config(const KernelSpec& spec, std::string_view config, std::string_view shape);

/// 64-bit FNV-1a of `text` as 16 hex digits.
std::string hash_hex(std::string_view text);

}  // namespace cutune
