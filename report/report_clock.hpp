// The report's account of tuning time: where each run's wall time went, and the total over the report's runs.
#pragma once

#include "report_json.hpp"

namespace cutune::detail {

/// Per run of the group that kept its time accounting (RunRecord::times): its label, wall time, phases in seconds,
/// NVRTC's CPU time, and the verification and timing of its measurements in the group. Empty for runs without.
PageJson group_clock(const ReportGroup& group);

/// The same summed over every run of the report that kept it, with how many those are; null when none did.
PageJson total_clock(const ReportData& data);

}  // namespace cutune::detail
