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

namespace {
constexpr L2Flush kAll[] = {L2Flush::Read, L2Flush::Write, L2Flush::None};
}

std::optional<L2Flush> parse_l2_flush(std::string_view text) {
  for (const L2Flush f : kAll) {
    if (text == to_string(f)) return f;
  }
  return std::nullopt;
}

std::vector<std::string> l2_flush_names() {
  std::vector<std::string> names;
  for (const L2Flush f : kAll) names.emplace_back(to_string(f));
  return names;
}

}  // namespace cutune
