// The L2 state a timed launch starts from: a measurement convention, stored with every result it produced.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutune {

/// What happens to the L2 cache before each timed launch (outside the timing). A time means something only under
/// its convention: the same kernels measured 0.91x, 1.04x and 0.99x cuBLAS under Write, Read and None (bf16 GEMM
/// 16x4096x4096 on an H100), so results of different conventions are stored apart and never compared.
enum class L2Flush {
  Read,   ///< read a buffer of twice the L2 size: L2 holds clean lines of other data (cutune's default)
  Write,  ///< memset a buffer of 256 MB (or twice the L2 size, if larger): L2 holds dirty lines, as nvbench and
          ///< Triton's do_bench leave it; evicting them costs the timed launch write-backs
  None,   ///< nothing: back-to-back launches, each finding what the previous one left in L2
};

/// "read", "write", "none": the spelling of the command line, specs, the database and exchange files.
std::string_view to_string(L2Flush flush);
/// Inverse of to_string(); nullopt for any other text (callers name the field in their own error).
std::optional<L2Flush> parse_l2_flush(std::string_view text);
/// {"read", "write", "none"}: the values a command-line option may take.
std::vector<std::string> l2_flush_names();
/// "read, write, none": for error messages.
inline constexpr std::string_view kL2FlushNames = "read, write, none";

}  // namespace cutune
