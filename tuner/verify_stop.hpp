// Stops a shape early when its first configurations all disagree with the reference in the same way.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cutune/result.hpp"

namespace cutune::detail {

/// Whether `results` disagree with the reference in the same way: every one a WrongResult with a Disagreement, all in
/// the same output, and all at the same first index or with the same count of differing elements. Such agreement among
/// different configurations points at the reference, the inputs or the tolerance rather than at the configurations.
bool same_disagreement(const std::vector<Result>& results);

/// Hears a shape's results as they arrive and decides once, at the `needed`-th result that ran (Ok, Unverified or
/// WrongResult; compile, launch and runtime failures and timeouts say nothing about the reference), whether to stop:
/// when those results are the same disagreement. `needed` 0 never stops.
class DisagreementWatch {
 public:
  explicit DisagreementWatch(std::size_t needed) : needed_(needed) {}
  /// True from the result that decided to stop on.
  bool hear(const Result& r);
  bool stopped() const { return stopped_; }
  /// What the user reads when the shape stopped: where the configurations differ (a few elements with the reference's
  /// values, from each result's message) and how to go on; lines separated by '\n'. `reference` names what the outputs
  /// were compared with.
  std::string message(const std::string& reference) const;

 private:
  std::size_t needed_;
  std::vector<Result> ran_;  // the first results that ran, up to needed_
  bool decided_ = false;
  bool stopped_ = false;
};

}  // namespace cutune::detail
