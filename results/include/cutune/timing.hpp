// The summary of a configuration's timed runs: median, extremes and spread, as a Result stores them.
#pragma once

#include <vector>

namespace cutune {

/// Median, extremes and spread of timing samples.
struct Timing {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double spread = 0.0;  ///< interquartile range over the median
};
/// Summarises samples (any order); all zero for none.
Timing summarize(std::vector<double> samples);

}  // namespace cutune
