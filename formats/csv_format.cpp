// The csv export: one row per measurement with its run's provenance, quoted as RFC 4180 asks.
#include <cmath>
#include <ostream>
#include <sstream>

#include "cutune/result_fields.hpp"
#include "formats.hpp"

namespace cutune::detail {
namespace {

// The run's provenance and the measurement's key, then the figures of result_fields.hpp's table, then the rest.
std::string header() {
  std::string out =
      "run_uid,host,started_at,cutune_version,device,cc,sm_count,device_uuid,driver_version,nvrtc_version,kernel,"
      "kernel_hash,shape,config,status";
  for (const ResultField& f : kResultFields) {
    out += ',';  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "," + std::string
    out += f.name;
  }
  return out + ",samples_ms,measured_at,flush,message";
}

// Configurations hold commas and messages hold anything: such fields are quoted, quotes doubled.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// Shortest text that reads back as the same double; empty for NaN (no value).
std::string number(double value) {
  if (std::isnan(value)) return "";
  for (int digits = 6;; ++digits) {
    std::ostringstream text;
    text.precision(digits);
    text << value;
    double back = 0.0;
    std::istringstream(text.str()) >> back;
    if (back == value || digits == 17) return text.str();
  }
}

}  // namespace

void write_csv(const std::vector<RunRecord>& runs, std::ostream& out) {
  out << header() << "\n";
  for (const auto& run : runs) {
    const DeviceIdentity& d = run.device;
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string chains.
    std::string run_fields;
    for (const std::string& text : {field(run.uid), field(run.host), field(run.started_at), field(run.cutune_version),
                                    field(d.name), std::to_string(d.cc_major) + '.' + std::to_string(d.cc_minor),
                                    std::to_string(d.sm_count), field(d.uuid), std::to_string(d.driver_version),
                                    std::to_string(d.nvrtc_version), field(run.kernel.name), field(run.kernel.hash)}) {
      if (!run_fields.empty()) run_fields += ',';
      run_fields += text;
    }
    for (const auto& m : run.measurements) {
      const Result& r = m.result;
      std::string samples;
      for (const double s : r.samples_ms) {
        if (!samples.empty()) samples += ' ';
        samples += number(s);
      }
      out << run_fields << "," << field(m.shape) << "," << field(r.config) << "," << to_string(r.status);
      for (const ResultField& f : kResultFields) {
        out << "," << (is_integer(f) ? std::to_string(integer_value(r, f)) : number(field_value(r, f)));
      }
      out << "," << field(samples) << "," << field(m.measured_at) << "," << to_string(run.flush) << ","
          << field(r.message) << "\n";
    }
  }
}

}  // namespace cutune::detail
