// What the parts of the T1 reader (t1.cpp, t1_kernel.cpp, t1_arguments.cpp) share.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/expr.hpp"
#include "cutune/spec.hpp"
#include "cutune/t1.hpp"

namespace cutune::detail {

using Json = nlohmann::ordered_json;

/// The problem being read and how its errors and issues are reported, each naming its field.
class T1Context {
 public:
  explicit T1Context(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw SpecError("T1 " + name_ + ": " + field + ": " + what);
  }
  void note(T1Issue::Kind kind, std::string field, std::string message, bool blocks_tuning = false) {
    problem_.issues.push_back(T1Issue{kind, std::move(field), std::move(message), blocks_tuning});
  }
  /// Each parameter's values, then ProblemSize: the lists that argument sizes may name.
  const ListBindings& lists() const { return lists_; }
  /// Records the parameters that `text`, a size read at `field` (an argument's Size, the ProblemSize), names: the
  /// parameters of the problem rather than of how it is computed (t1_reference.cpp).
  void sizes_name(std::string_view text, const std::string& field);

 protected:
  std::string name_;
  T1Problem problem_;
  Json spec_;  // the cutune spec being written
  ListBindings lists_;
  /// Parameters named by sizes, in the order found, each with the fields that name it.
  std::vector<std::pair<std::string, std::vector<std::string>>> size_parameters_;
};

/// The shape's dimension names: ProblemSize[0], [1] and [2].
inline constexpr const char* kT1ShapeNames[] = {"problem_size_x", "problem_size_y", "problem_size_z"};

/// Reads one T1 file into a cutune spec (JSON), then the spec through KernelSpec::from_json. The space's parts are
/// in t1.cpp, the kernel's files and geometry in t1_kernel.cpp.
class T1Reader : public T1Context {
 public:
  T1Reader(const Json& root, std::filesystem::path folder, const std::string& name)
      : T1Context(name), root_(root), folder_(std::move(folder)) {
    problem_.spec.name = name;
  }

  T1Problem read();

 private:
  const Json& object(const Json& parent, const char* key, const std::string& field) const;
  std::string required_string(const Json& parent, const char* key, const std::string& field) const;
  bool is_parameter(const std::string& name) const;

  void read_parameters(const Json& space);
  std::vector<Value> read_values(const Json& p, const std::string& field, const std::string& type) const;
  void read_conditions(const Json& space);
  void check_condition_parameters(const Json& condition, const Expr& expr, const std::string& field);
  void read_problem_size(const Json& kernel);
  void read_objective(std::int64_t buffer_bytes);

  void read_kernel(const Json& kernel);
  void check_benchmark_names(const Json& kernel);
  std::optional<std::string> geometry_expression(const Json& j, const std::string& field,
                                                 const std::string& consequence);
  void read_block(const Json& kernel);
  void read_grid(const Json& kernel);
  // The grid as ceil(ProblemSize / product of GridDiv), as Kernel Tuner reads T1 files; false when it is not known.
  bool read_divided_grid(const Json& kernel, std::array<std::string, 3>& grid);
  // GridDiv<axis> (a value or a list), else the block-size parameter Kernel Tuner divides by; `known` turns false when
  // a divisor cannot be read.
  std::vector<std::string> grid_divisors(const Json& kernel, std::size_t axis, bool& known);
  // The grid from GlobalSize, in blocks (CUDA) or in threads (OpenCL); false when it is not known.
  bool read_global_grid(const Json& kernel, std::array<std::string, 3>& grid);
  void read_shared_memory(const Json& kernel);
  // The names Kernel Tuner defines for every compile besides the parameters (kernel_tuner, the launch's block and grid).
  void define_kernel_tuner_names();

  KernelSpec build(const Config& reference, bool with_constraints) const;
  void choose_reference();
  void note_follow();

  const Json& root_;
  std::filesystem::path folder_;
  std::vector<std::string> parameter_names_;
  Config defaults_;
  std::vector<Expr> conditions_;  // bound to parameter_names_
  bool has_problem_size_ = false;
  std::string language_;
  std::array<std::string, 3> block_{"1", "1", "1"};  // LocalSize, or 1s when it cannot be used
  bool block_known_ = false;
  std::string source_;
  std::string source_name_;
};

/// A file's text, or nullopt when it cannot be read.
std::optional<std::string> read_text(const std::filesystem::path& path);

/// The spec's "arguments" and the bytes its buffers hold (the metric: T1 states none).
struct T1Arguments {
  Json list;
  std::int64_t bytes = 0;
  std::int64_t local_bytes = 0;  ///< Local arguments: dynamic shared memory per block
  Json checks = Json::object();      ///< ReferenceArguments' thresholds: the spec's "verify"."outputs"
  bool unverified = false;           ///< no output: tuned by time alone ("verify": {"mode": "none"})
};
/// `folder`: where BinaryRaw files are looked for (the T1 file's).
T1Arguments read_t1_arguments(T1Context& t1, const Json& kernel, const std::filesystem::path& folder);

/// A name cutune's spec reader accepts (argument names, which no expression uses).
bool is_spec_identifier(std::string_view s);
/// A name usable in both Python and cutune's expressions (parameters).
bool is_t1_identifier(std::string_view s);
/// A JSON number or boolean as a Value.
std::optional<Value> json_number(const Json& j);
Json number_json(const Value& v);

}  // namespace cutune::detail
