// Finding the edge levels that few configurations take: one pass to count each level, one to list the rare ones'.
#include "rare_edges.hpp"

namespace cutune::detail {

std::vector<RareEdge> rare_edges(const SpaceIndex& index, double limit) {
  const std::size_t d = index.dimensions();
  std::vector<std::vector<std::size_t>> count(d);
  for (std::size_t p = 0; p < d; ++p) count[p].assign(index.levels(p), 0);
  for (std::size_t c = 0; c < index.size(); ++c) {
    const auto code = index.code(c);
    for (std::size_t p = 0; p < d; ++p) ++count[p][code[p]];
  }
  std::vector<RareEdge> out;
  for (std::size_t p = 0; p < d; ++p) {
    const std::size_t levels = index.levels(p);
    if (levels < 2) continue;
    for (const std::size_t edge : {std::size_t{0}, levels - 1})
      if (static_cast<double>(count[p][edge]) < limit) out.push_back({p, static_cast<std::uint16_t>(edge), {}});
  }
  if (out.empty()) return out;
  for (std::size_t c = 0; c < index.size(); ++c) {
    const auto code = index.code(c);
    for (auto& edge : out)
      if (code[edge.parameter] == edge.level) edge.configs.push_back(static_cast<std::uint32_t>(c));
  }
  return out;
}

}  // namespace cutune::detail
