// The spellings of the L2 conventions.
#include "cutune/l2_flush.hpp"

namespace cutune {

std::string_view to_string(L2Flush flush) {
  switch (flush) {
    case L2Flush::Read: return "read";
    case L2Flush::Write: return "write";
    case L2Flush::None: return "none";
  }
  return "read";
}

std::optional<L2Flush> parse_l2_flush(std::string_view text) {
  for (const L2Flush f : {L2Flush::Read, L2Flush::Write, L2Flush::None}) {
    if (text == to_string(f)) return f;
  }
  return std::nullopt;
}

}  // namespace cutune
