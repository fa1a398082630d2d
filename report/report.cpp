// The report's public entry points: a database or a replay into a page, to a stream or whole into a file.
#include "cutune/report.hpp"

#include "page_writer.hpp"
#include "report_data.hpp"
#include "report_json.hpp"

namespace cutune {

void write_report(Database& db, const ReportOptions& options, std::ostream& out) {
  detail::write_page(detail::report_json(detail::collect_report_data(db, options), options), out);
}

void write_report_file(Database& db, const ReportOptions& options, const std::filesystem::path& file) {
  // Everything that can fail on the database's side fails before the file is touched.
  const detail::PageJson data = detail::report_json(detail::collect_report_data(db, options), options);
  detail::write_file_whole(file, [&](std::ostream& out) { detail::write_page(data, out); });
}

void write_replay_report(const std::vector<ReplayResult>& results, const ReplayReportInfo& info, std::ostream& out) {
  detail::write_page(detail::replay_json(results, info), out);
}

void write_replay_report_file(const std::vector<ReplayResult>& results, const ReplayReportInfo& info,
                              const std::filesystem::path& file) {
  const detail::PageJson data = detail::replay_json(results, info);
  detail::write_file_whole(file, [&](std::ostream& out) { detail::write_page(data, out); });
}

}  // namespace cutune
