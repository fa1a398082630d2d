// The data a report page plots, as compact JSON: aggregated where the plot is an aggregate, capped where it is not.
#pragma once

#include <nlohmann/json.hpp>

#include "report_data.hpp"

namespace cutune::detail {

using PageJson = nlohmann::ordered_json;

/// Scatter plots show at most this many configurations per group (the fastest always among them): a page of
/// 100,000 results stays small and draws in a browser in a few seconds.
constexpr std::size_t kScatterPoints = 2000;

/// "run 2 (2025-01-31T12:00, node1): tune ...": a run as the page names it, `number` counting from 1 in its group.
std::string run_label(const RunRecord& run, std::size_t number);

/// The database report's data: the groups, and each kernel across devices and shapes.
PageJson report_json(const ReportData& data, const ReportOptions& options);

/// The replay report's data: per strategy, the median best found over the optimum at each budget.
PageJson replay_json(const std::vector<ReplayResult>& results, const ReplayReportInfo& info);

}  // namespace cutune::detail
