// SearchInputs: quantities known of every configuration of a space before anything is compiled or measured (for a
// kernel spec at a shape on a GPU: its launch's units of work, how many waves they take over the SMs, how full those
// waves are), handed to the search beside the parameters themselves.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cutune {

/// Per configuration of a space, the value of each named input, and which inputs the search should favour high.
struct SearchInputs {
  std::vector<std::string> names;
  /// Row after row: configuration c's values are at [c * names.size(), (c + 1) * names.size()). NaN: unknown there.
  std::vector<double> values;
  /// Inputs (positions in `names`) whose higher values usually run faster: the default strategy draws its initial
  /// design from the configurations at or above the space's median of each (launch_inputs(): how busy the launch's
  /// waves keep the GPU, so that the first outcomes are not spent on grids that leave most SMs idle).
  std::vector<std::size_t> favour_high;
  /// Per entry of favour_high (missing: none), a value that counts as favoured whatever the median: where every
  /// configuration's waves keep the GPU nearly full (a copy of many waves), the rest of the spread says nothing of speed.
  std::vector<double> favour_enough;

  bool empty() const { return names.empty(); }
  double at(std::size_t config, std::size_t input) const { return values[config * names.size() + input]; }
};

}  // namespace cutune
