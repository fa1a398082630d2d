// Splitting a space into interleaved parts for independent jobs, and reading a part's "i/n" text.
#include "cutune/shard.hpp"

#include "cutune/error.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

// More parts than this is no job array a scheduler runs; the bound also keeps the digits from overflowing.
constexpr std::size_t kMaxParts = std::size_t{1} << 20;

// Digits only (no sign, no spaces, at most 7 of them), or nothing.
std::optional<std::size_t> whole_number(std::string_view text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  std::size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value;
}

}  // namespace

Shard Shard::parse(std::string_view text) {
  const std::string quoted = "shard '" + std::string(text) + "'";
  const std::size_t slash = text.find('/');
  const auto index = whole_number(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!index || !count) throw InputError(quoted + " is not i/n (e.g. 2/4: the second of 4 parts)");
  if (*count == 0 || *count > kMaxParts) {
    throw InputError(quoted + ": the number of parts must be from 1 to " + std::to_string(kMaxParts));
  }
  if (*index == 0 || *index > *count) {
    throw InputError(quoted + ": the part must be from 1 to " + std::to_string(*count) +
                     " (parts count from 1, as SLURM_ARRAY_TASK_ID with --array=1-" + std::to_string(*count) + ")");
  }
  return {*index, *count};
}

Space Space::shard(const Shard& part) const {
  if (part.count == 0 || part.index == 0 || part.index > part.count) {
    throw InputError("shard " + part.str() + " is not a part of the space");
  }
  Space out;
  out.cartesian_size_ = cartesian_size_;
  out.removed_by_constraints_ = removed_by_constraints_;
  out.removed_by_device_ = removed_by_device_;
  out.removed_by_target_ = removed_by_target_;
  out.sample_of_ = sample_of_;
  out.configs_.reserve(configs_.size() / part.count + 1);
  for (std::size_t p = 0; p < configs_.size(); ++p)
    if (part.holds(p)) out.configs_.push_back(configs_[p]);
  out.removed_by_shard_ = removed_by_shard_ + (configs_.size() - out.configs_.size());
  return out;
}

}  // namespace cutune
