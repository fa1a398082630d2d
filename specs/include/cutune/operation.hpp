// An operation: what an application calls (a GEMM of given types and layouts), implemented by several kernel families
// with one argument list, such as cutune's templates and a vendor library's family (cutune/library.hpp). Its spec
// names the implementations; each keeps its own spec, results and name, and the operation's tuning, lookup and launch
// range over all of them (docs/kernels.md, "Operations").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

struct OperationSpec {
  std::string name;
  std::string description;
  /// In the spec's order; all take the first's arguments (names, kinds and element types) and shape.
  std::vector<KernelSpec> implementations;
  /// The implementation launched at its default configuration at a shape that no implementation has a result for
  /// ("untuned"; default: the first library family by rank among them, whose default is the library's own choice at
  /// any shape, else the first library family); unset:
  /// the first implementation's fallback rule (KernelSpec's choose_config()).
  std::optional<std::size_t> untuned;

  /// The implementation named `name`, or null.
  const KernelSpec* find(std::string_view name) const;
  /// The operation's version: a hash of its name, its implementations' names and versions (KernelSpec::hash) and
  /// which is untuned. Wanted shapes of an operation are recorded under (name, hash), as a kernel's.
  std::string hash() const;
  /// The shape in the implementations' dimension names.
  Shape parse_shape(std::string_view text) const { return implementations.front().parse_shape(text); }
};

/// Reads an operation spec, {"name", "description", "implementations": [...], "untuned": NAME}; `load` gives an
/// implementation's spec by the name or file the list holds. Throws SpecError naming the operation and the field, also
/// when two implementations differ in their shape, arguments or L2 convention.
OperationSpec operation_from_json(std::string_view text, const std::function<KernelSpec(const std::string&)>& load);

/// Names of the built-in operations (templates/ops/NAME.op.json), sorted.
std::vector<std::string> builtin_operations();
/// Whether `name_or_path` is a built-in operation's name, or a .json file whose top level has "implementations".
bool is_operation(std::string_view name_or_path);
/// A built-in operation by name, or an operation spec file; its implementations are built-in kernels by name, or spec
/// files relative to the operation's file. Throws InputError for an unknown operation, SpecError for a malformed one.
OperationSpec load_operation(std::string_view name_or_path);

}  // namespace cutune
