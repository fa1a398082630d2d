// A guard for JSON read from files: nesting deep enough to exhaust the stack is refused before it is parsed.
#pragma once

#include <cstddef>
#include <string_view>

namespace cutune::detail {

/// The deepest nesting of arrays and objects that cutune's readers accept; its own formats and the community's (T1,
/// T4, Kernel Tuner caches) need fewer than ten levels.
inline constexpr std::size_t kMaxJsonDepth = 100;

/// Whether `text` nests arrays and objects deeper than kMaxJsonDepth; brackets inside strings do not count, and
/// malformed text is left to the parser. nlohmann::json parses any depth, but printing a value (as error messages
/// do) or copying it recurses once per level: a file of 100000 brackets would crash the reader.
bool json_too_deep(std::string_view text);

}  // namespace cutune::detail
