// Decides from a shape's first results whether they all disagree with the reference in the same way.
#include "tuner/verify_stop.hpp"

#include <algorithm>

namespace cutune::detail {

bool same_disagreement(const std::vector<Result>& results) {
  if (results.empty()) return false;
  const auto wrong = [](const Result& r) { return r.status == Status::WrongResult && r.disagreement; };
  if (!std::all_of(results.begin(), results.end(), wrong)) return false;
  const Disagreement& first = *results.front().disagreement;
  const auto like_first = [&first](auto field) {
    return [&first, field](const Result& r) { return field(*r.disagreement) == field(first); };
  };
  const auto output = [](const Disagreement& d) { return d.output; };
  const auto index = [](const Disagreement& d) { return d.first; };
  const auto count = [](const Disagreement& d) { return d.count; };
  if (!std::all_of(results.begin(), results.end(), like_first(output))) return false;
  return std::all_of(results.begin(), results.end(), like_first(index)) ||
         std::all_of(results.begin(), results.end(), like_first(count));
}

bool DisagreementWatch::hear(const Result& r) {
  if (decided_) return false;
  if (needed_ == 0) {
    decided_ = true;
    return false;
  }
  const bool ran = usable(r.status) || r.status == Status::WrongResult;
  if (!ran) return false;
  ran_.push_back(r);
  if (ran_.size() < needed_) return false;
  decided_ = true;
  stopped_ = same_disagreement(ran_);
  return stopped_;
}

std::string DisagreementWatch::message(const std::string& reference) const {
  std::string out = "stopped early: the first " + std::to_string(ran_.size()) +
                    " configurations that ran all differ from the reference (" + reference +
                    ") in the same way, which points at the reference, the inputs or the tolerance rather than at "
                    "the configurations:";
  for (const Result& r : ran_) out += "\n  " + r.config + ": " + r.message;
  out += "\nif these differences are expected: compare only part of the output (a \"verify\" region in the spec, "
         "e.g. interior elements), loosen the tolerance (--atol, --rtol or the spec's \"verify\"), give the inputs a "
         "range the kernel handles (a fill range), compare with the default configuration (--verify default), "
         "let the reference take the parameters that change what is computed (a filter's size) from each "
         "configuration (--follow NAME, or the spec's \"reference\": {\"follow\": [...]}), or do not compare "
         "(--verify none: results are stored as unverified)";
  return out;
}

}  // namespace cutune::detail
