// Reads T1 tuning-problem files, the autotuning community's input format, into kernel specs.
//
// A T1 file is translated into cutune's own spec format (spec.hpp) and read by the same reader, so a problem
// tunes like any kernel. Its Python-subset expressions are read by the expression language (expr.hpp), never by
// running Python:
//
// - ConfigurationSpace.TuningParameters[].Values: eval_list() (list literals, range, comprehensions, `+`);
//   Type int, uint, float or bool. Default: the configuration the reference runs (below).
// - ConfigurationSpace.Conditions[].Expression: constraints.
// - KernelSpecification: Language (CUDA only), KernelName, KernelFile (next to the T1 file), CompilerOptions,
//   LocalSize (the block), and the grid: with GridDivX/Y/Z, ceil(ProblemSize[i] / product of GridDiv entries) as
//   Kernel Tuner reads T1 files (a missing GridDiv divides by the parameter block_size_x/y/z if there is one);
//   without them, GlobalSize in blocks (GlobalSizeType CUDA) or in threads (OpenCL, divided by LocalSize).
//   SharedMemory is requested as dynamic shared memory per block.
// - Arguments: Type bool, int8 ... uint64, half, float, double, or a vector type (half2 ... double16) as a buffer of
//   its element; MemoryType Vector (buffers, with Size a number or an expression of ProblemSize and the parameters'
//   value lists), Scalar (FillValue), Symbol or a Vector with MemType Constant (passed, and copied into the
//   __constant__ array named like the argument), Local (dynamic shared memory, no parameter); FillType Constant (any
//   value), Random (FillValue bounds the range from 0), Generator (DataSource: an expression of the index i),
//   BinaryRaw (DataSource: a file beside the T1 file); `Output: 1` marks what is verified. ReferenceArguments give an
//   output's expected contents and their threshold. General.Objective: time, or GB/s over the buffers' bytes; other
//   objectives are noted, and timed.
//
// The problem size is the spec's shape (dimensions problem_size_x, _y, _z) and the only shape tuned. T1 has no
// reference kernel: outputs are verified against the kernel at a reference configuration, the file's Default
// values when they form a valid configuration, else the first valid configuration; the issues say which.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

/// Something a T1 file says that cutune reports rather than guesses about.
struct T1Issue {
  enum class Kind {
    Note,         ///< how an ambiguity was resolved
    Defect,       ///< the file contradicts itself or the T1 schema
    Unsupported,  ///< valid T1 that cutune cannot run
    Missing,      ///< the kernel source is not where the file says
  };
  Kind kind = Kind::Note;
  std::string field;           ///< where in the file, e.g. "KernelSpecification.LocalSize.X"
  std::string message;
  bool blocks_tuning = false;  ///< the space is still read and counted; tuning is refused
  /// "defect: FIELD: MESSAGE (blocks tuning)"
  std::string str() const;
};

/// A T1 problem as a kernel spec, with what was found along the way.
struct T1Problem {
  KernelSpec spec;  ///< named after the file's stem
  Shape shape;      ///< the file's ProblemSize: the one shape it describes (1 when it gives none)
  std::vector<T1Issue> issues;

  bool tunable() const;
  /// Throws SpecError listing every issue that blocks tuning, each with its field.
  void require_tunable() const;
};

/// Reads a T1 file and the kernel source it names (looked up next to the file, then as given). Throws
/// InputError when the file cannot be read and SpecError naming the field when the configuration space or the
/// kernel's name cannot be read (malformed JSON or expression, unsupported construct or parameter type, unknown
/// names in a condition, duplicate values, an empty space). Problems of the kernel specification that leave the
/// space well defined are returned as issues instead, so that the space can still be counted.
T1Problem read_t1(const std::filesystem::path& file);

/// read_t1() on text; `folder` is where KernelFile is looked for and `name` becomes the spec's name.
T1Problem parse_t1(std::string_view text, const std::filesystem::path& folder, const std::string& name);

}  // namespace cutune
