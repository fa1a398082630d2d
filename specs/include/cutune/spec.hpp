// A kernel's declarative spec: the one description format of built-in and user kernels, a JSON file next to its CUDA
// source (parameters, constraints, launch, arguments, reference, tolerance, metric). docs/spec.md is the format's
// reference; this header holds what the rest of cutune reads from a parsed spec (KernelSpec) and how a configuration
// and a shape resolve into a launch.
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
#include "cutune/l2_flush.hpp"

namespace cutune {

struct PipelineSpec;
struct LibrarySpec;

/// A problem size: one extent per dimension name of the spec, printed as 8192x4096.
struct Shape {
  std::vector<std::int64_t> dims;
  std::string str() const;
  friend bool operator==(const Shape& a, const Shape& b) { return a.dims == b.dims; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
};

/// One point of a space: a value per parameter, in the spec's parameter order.
struct Config {
  std::vector<Value> values;
  friend bool operator==(const Config& a, const Config& b) { return a.values == b.values; }
  friend bool operator!=(const Config& a, const Config& b) { return !(a == b); }
};

struct Parameter {
  std::string name;
  std::vector<Value> values;
  Value default_value;
  std::string description;
};

/// Element types of buffers and scalars. BFloat16 and Float16 are CUDA's __nv_bfloat16 and __half; Float8E4M3 and
/// Float8E5M2 CUDA's __nv_fp8_e4m3 and __nv_fp8_e5m2 (OCP FP8: e4m3 without infinities, largest 448; e5m2 largest
/// 57344), converted with saturation to the largest finite value as CUDA's constructors do; Bool is one byte.
enum class ElementType {
  Float32, Float64, Int32, Int64, UInt32, BFloat16, Float16, Int8, UInt8, Int16, UInt16, UInt64, Bool, Float8E4M3,
  Float8E5M2
};
inline constexpr std::size_t kElementTypes = 15;
/// Integer types (Bool among them): fills draw integers, comparisons are exact unless a tolerance says otherwise.
bool is_integer(ElementType t);
std::size_t element_size(ElementType t);
std::string_view to_string(ElementType t);

/// Initial content of a buffer. Outputs default to Poison (NaN, all bits set), so unwritten elements fail verification.
/// Random draws cutune's own range (floats in [-1, 1), integers in [-100, 100], unsigned in [0, 200]); Uniform and
/// Normal a range the spec gives; Constant one value; Generator an expression of the element index `i`; File raw
/// bytes of a file.
enum class Fill { Random, Zero, One, Poison, Constant, Uniform, Normal, Generator, File };

/// A buffer's fill with what it needs: "random", "zero", "one", "poison", a number, {"constant": v},
/// {"uniform": [lo, hi]}, {"normal": [mean, deviation]}, {"generator": "EXPR of i"} or {"file": "data.bin"}.
struct FillRule {
  Fill kind = Fill::Random;
  Value constant;                 ///< Constant: the value
  double low = 0.0, high = 0.0;   ///< Uniform: the range (integers: both ends included); Normal: mean, deviation
  std::optional<Expr> generator;  ///< Generator: over "i" (the element's index), then the shape's names
  std::string file;               ///< File: absolute path, or relative to the working directory; raw elements
  FillRule() = default;
  FillRule(Fill k) : kind(k) {}  // NOLINT: implicit, so that `fill = Fill::Zero` sets a rule of that kind
  /// Whether the fill puts data an output must get back before each run (random, generated, a file), rather than one
  /// value that can simply be written again.
  bool holds_data() const {
    return kind != Fill::Zero && kind != Fill::One && kind != Fill::Poison && kind != Fill::Constant;
  }
  friend bool operator==(const FillRule& r, Fill k) { return r.kind == k; }
  friend bool operator!=(const FillRule& r, Fill k) { return r.kind != k; }
};

/// A TMA tensor map over one of the spec's buffers (an argument of type CUtensorMap): encoded on the host with
/// cuTensorMapEncodeTiled for each configuration, since its box follows the tile (tensor_map.hpp computes it).
struct TensorMapArg {
  std::string buffer;            ///< the buffer argument it describes (its element type and device pointer)
  std::size_t buffer_index = 0;  ///< that argument's position in KernelSpec::arguments
  std::vector<Expr> dims;        ///< global extents, innermost first, over shape names; rank 1 to 5
  std::vector<Expr> strides;     ///< elements from one index of dims[i + 1] to the next (rank - 1 of them), over
                                 ///< shape names; packed (products of dims) when the spec gives none
  std::vector<Expr> box;         ///< box extents, innermost first, over parameter and shape names
  Expr swizzle;                  ///< shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128
  int l2_promotion = 128;        ///< bytes: 0 (none), 64, 128 or 256
  bool oob_nan = false;          ///< elements outside the tensor read as NaN (float types), else as zero
  /// The configurations that read the map, over parameter names (absent: all). The others get zero bytes in its
  /// place, and the driver's limits on it do not constrain them.
  std::optional<Expr> when;
};

/// One kernel argument: a device buffer (pointer type), a scalar passed by value, or a tensor map; or an array in
/// the kernel's constant memory, which is no kernel parameter at all.
struct Argument {
  std::string name;
  bool is_buffer = false;
  ElementType type = ElementType::Float32;  ///< tensor maps: their buffer's
  Expr size;            ///< buffers: number of elements
  Expr value;           ///< scalars: the value
  FillRule fill;
  bool output = false;  ///< outputs are poisoned before each run and compared with the reference's
  /// Outputs: what the output must hold after a run, as a fill (T1's ReferenceArguments), instead of what the
  /// reference wrote.
  std::optional<FillRule> expected;
  std::optional<TensorMapArg> tensor_map;  ///< set for CUtensorMap arguments (then is_buffer is false)
  /// Constant memory: the kernel's `__constant__` array this buffer is copied into before each launch (then
  /// is_buffer is true, and a runtime caller passes the data's address in the argument's place).
  std::string symbol;
  /// Whether the kernel takes the argument as a parameter: all but "memory": "constant" arrays (a global buffer with
  /// a "symbol" is both passed and copied, as Kernel Tuner passes its constant-memory arguments).
  bool parameter = true;
  bool in_constant_memory() const { return !symbol.empty(); }
  bool is_parameter() const { return parameter; }
};

/// The name a grid expression may use for the GPU's multiprocessor count (a persistent kernel's block count); no
/// parameter or shape dimension may take it.
inline constexpr std::string_view kSmCountName = "SM_COUNT";

/// Launch geometry as expressions; see resolve() for numbers. The grid's expressions are bound to scope_names() and
/// then kSmCountName.
struct Geometry {
  std::array<Expr, 3> block;
  std::array<Expr, 3> grid;
  Expr shared_memory;  ///< dynamic shared memory, bytes
  /// Thread-block cluster, over parameter names: blocks per cluster along x, y, z (1, 1, 1: no cluster).
  std::array<Expr, 3> cluster{Expr::constant(1), Expr::constant(1), Expr::constant(1)};
};

/// Launch geometry in numbers.
struct Launch {
  std::array<std::int64_t, 3> block{1, 1, 1};
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::int64_t shared_memory = 0;
  std::array<std::int64_t, 3> cluster{1, 1, 1};
  std::int64_t threads() const { return block[0] * block[1] * block[2]; }
  std::int64_t cluster_size() const { return cluster[0] * cluster[1] * cluster[2]; }
};

/// Configurations that compile for an architecture-specific target ("sm_90a": wgmma, setmaxnreg, ...) and so run
/// only on GPUs of exactly that compute capability (target.hpp).
struct TargetRule {
  std::string arch;  ///< "sm_<major><minor>a", e.g. sm_90a, sm_100a, sm_120a
  Expr when;         ///< over parameter names; the constant 1 for a spec-wide target
};

/// A name the spec's "defines" pass to the compiler beside the parameters (-DNAME=value): its value an expression of
/// parameter and shape names, evaluated per configuration and shape, defined only in the configurations where `when`
/// (over parameter names) holds. A define that names a shape dimension makes its configurations' binaries
/// shape-specialized: one per shape (defines.cpp).
struct DefineRule {
  std::string name;
  Expr value;
  Expr when = Expr::constant(1);
  bool uses_shape = false;  ///< `value` names a shape dimension
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

/// What a configuration's outputs are compared with: the spec's reference (its reference kernel or reference
/// configuration), the kernel itself at its default configuration, or nothing (results are stored as unverified).
enum class VerifyMode { Reference, Default, None };
std::string_view to_string(VerifyMode m);
/// "reference", "default" or "none"; nullopt for anything else.
std::optional<VerifyMode> parse_verify_mode(std::string_view text);
inline constexpr std::string_view kVerifyModeNames = "reference, default or none";

/// The part of an output that is compared, as expressions over the shape's names: the buffer seen as an array of
/// `extents` (innermost first; their product is the buffer's size), of which the elements with
/// begin[d] <= index[d] < end[d] in every dimension d are compared. With `margin`, end[d] holds a margin: the
/// dimension's end is extents[d] - end[d].
struct RegionRule {
  std::vector<Expr> extents;
  std::vector<Expr> begin;
  std::vector<Expr> end;
  bool margin = false;
};

/// A region in numbers at one shape; dimensions past `rank` are extent 1, begin 0, end 1.
struct Region {
  int rank = 1;
  std::array<std::int64_t, 3> extents{1, 1, 1};
  std::array<std::int64_t, 3> begin{0, 0, 0};
  std::array<std::int64_t, 3> end{1, 1, 1};
  /// Elements inside the region.
  std::int64_t count() const { return (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]); }
  /// "[x, y]": an element's index in the array, innermost first.
  std::string coordinates(std::uint64_t index) const;
};

/// How one output buffer is checked ("verify"."outputs"): its own tolerance (each bound in place of the spec's
/// "tolerance" one) and the part of it compared.
struct OutputCheckRule {
  std::string output;  ///< the output buffer's name
  std::optional<Expr> atol;
  std::optional<Expr> rtol;
  std::optional<RegionRule> region;
};

/// The spec's "verify" section (verify_rule.cpp).
struct VerifyRule {
  std::optional<VerifyMode> mode;  ///< unset: Reference
  std::vector<OutputCheckRule> outputs;
};

struct Metric {
  /// Time: no figure beside the time (a kernel whose spec names no amount, e.g. a T1 file without an objective).
  enum class Kind { Bytes, Flops, Time } kind = Kind::Bytes;
  /// Which of the device's FLOP rates a FLOP metric is a fraction of: FP32 or FP64 FMA units, or the tensor cores'
  /// dense rate for TF32 or for 16-bit (FP16, BF16) inputs.
  enum class Peak { Fp32, Fp64, Tf32Tensor, F16Tensor, F8Tensor } peak = Peak::Fp32;
  Expr amount;
  std::string_view unit() const { return kind == Kind::Bytes ? "GB/s" : kind == Kind::Flops ? "GFLOP/s" : ""; }
  bool has_rate() const { return kind != Kind::Time; }
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
  /// Parameters of the problem rather than of how it is computed ("reference"."follow"; indices into `parameters`):
  /// a configuration is checked against the reference configuration with these parameters' values taken from it.
  /// Only with reference_config; empty: one reference for every configuration.
  std::vector<std::size_t> reference_follow;
  std::vector<Argument> arguments;
  /// Architecture-specific targets, in the spec's order; a configuration that matches none compiles for the
  /// device's own architecture.
  std::vector<TargetRule> targets;
  ToleranceRule tolerance;
  VerifyRule verify;
  Metric metric;
  std::vector<std::string> compile_options;
  /// The spec's "defines", in its order.
  std::vector<DefineRule> define_rules;
  /// Set when the spec describes a host pipeline around its kernel (cutune/pipeline.hpp); shared, never changed.
  std::shared_ptr<const PipelineSpec> pipeline;
  /// Set when a vendor library implements the family (cutune/library.hpp): then `kernel` is empty, nothing is
  /// compiled but the reference, and a configuration runs as the library's call; shared, never changed.
  std::shared_ptr<const LibrarySpec> library;
  /// Configurations a search evaluates before any it chooses itself ("start"), those valid at the shape: hints such
  /// as the tiles that won on some GPU. They change no result, so they are left out of the hash.
  std::vector<Config> start;
  /// The L2 convention the spec asks for ("measure": {"flush": ...}); unset: the built-in default (Read). Like
  /// `start`, left out of the hash: a time's convention is stored beside it, not in the kernel's version.
  std::optional<L2Flush> flush;
  /// The spec file's folder, where "file" fills are read (absolute after load()); empty: the working directory.
  std::filesystem::path folder;
  std::string hash;          ///< 16 hex digits over the source and the spec text: the kernel's version
  std::string json;          ///< the spec text: with source and source_name, from_json() rebuilds this spec

  /// Parses a spec; `source` is the CUDA text it names. Throws SpecError naming the field at fault.
  static KernelSpec from_json(std::string_view spec_text, std::string source, std::string source_name,
                              std::filesystem::path folder = {});
  /// Reads a spec file and the source it names (relative to the spec's folder).
  static KernelSpec load(const std::filesystem::path& spec_file);

  /// Parameter names, then shape names: the slots every expression is bound to.
  std::vector<std::string> scope_names() const;
  /// The values for scope_names(): the configuration's, then the shape's (0 for each dimension when absent).
  std::vector<Value> scope(const Config& config, const Shape* shape) const;

  Config default_config() const;
  /// `reference` with the values of the parameters in reference_follow taken from `config`: the configuration whose
  /// outputs `config`'s are compared with. `reference` itself when nothing is followed.
  Config following(const Config& reference, const Config& config) const;
  /// The L2 convention that applies: `asked` (the command line, the caller) when given, else the spec's own, else Read.
  L2Flush l2_flush(std::optional<L2Flush> asked = std::nullopt) const;
  /// Canonical form "TILE=32,VEC=4" in parameter order: used in logs, the database and the CLI.
  std::string format(const Config& config) const;
  /// Inverse of format(); throws InputError on unknown or missing names and values outside the parameter's list.
  Config parse_config(std::string_view text) const;
  /// Parses "8192x4096"; throws InputError unless there is one positive integer per dimension.
  Shape parse_shape(std::string_view text) const;
  /// The "-DNAME=VALUE" options for a configuration: its parameters, then the "defines" whose `when` holds, evaluated
  /// at `shape`. Throws InputError naming the define when one that names a shape dimension applies and `shape` is
  /// null, or when its value cannot be evaluated (division by zero).
  std::vector<std::string> defines(const Config& config, const Shape* shape = nullptr) const;
  /// Whether the configuration's binary depends on the shape: a define that names a shape dimension applies to it.
  bool shape_specialized(const Config& config) const;

  /// The geometry in numbers at a configuration and shape on a GPU of `sm_count` multiprocessors (SM_COUNT in the
  /// grid's expressions).
  Launch resolve(const Geometry& geometry, const Config& config, const Shape& shape, std::int64_t sm_count) const;
  /// Adds a constraint of the user's (the command line's --where, e.g. "SPLITK == 1"): only part of the space is
  /// searched, the kernel is the same, so its version (hash) does not change. Throws InputError naming `text` on a
  /// syntax error or an unknown name.
  void restrict_to(std::string_view text);
  /// The tolerance at a shape; throws InputError when an expression is negative there.
  Tolerance tolerance_at(const Shape& shape) const;
  /// An output's tolerance at a shape: its "verify" bounds where it has them, else "tolerance"'s; throws InputError
  /// when one is negative there.
  Tolerance tolerance_at(const Shape& shape, std::string_view output) const;
  /// The part of an output of `count` elements compared at a shape; nullopt: all of it. Throws InputError when the
  /// region's extents do not multiply to `count` or its bounds leave the array or hold no element.
  std::optional<Region> region_at(const Shape& shape, std::string_view output, std::int64_t count) const;
  /// What outputs are compared with: `asked` (the command line, the caller) when given, else "verify"."mode", else
  /// Reference.
  VerifyMode verify_mode(std::optional<VerifyMode> asked = std::nullopt) const;
  /// The metric's amount (bytes or FLOPs) for a shape.
  double metric_amount(const Shape& shape) const;
};

/// Why `config` (NAME=VALUE text from a database or a file) is not one of the spec's valid configurations at
/// `shape`: an unknown or missing parameter, a value not among the parameter's, a constraint that fails; nullopt
/// when it is valid.
std::optional<std::string> invalid_config(const KernelSpec& spec, std::string_view config, std::string_view shape);

/// Throws the InputError that tolerance_at() or region_at() gives for an output of the spec at `shape` (a negative
/// tolerance, a region that does not fit the buffer), or one for a spec without outputs that `mode` asks to compare,
/// so that a tuner refuses the shape before it measures anything.
void check_verification(const KernelSpec& spec, const Shape& shape, VerifyMode mode);

/// 64-bit FNV-1a of `text` as 16 hex digits.
std::string hash_hex(std::string_view text);

/// hash_hex() of text given in parts: a copy made after a shared prefix hashes each continuation without the prefix.
class HashHex {
 public:
  HashHex& add(std::string_view text);
  std::string hex() const;

 private:
  std::uint64_t state_ = 14695981039346656037ULL;  // the FNV-1a 64 offset basis
};

}  // namespace cutune
