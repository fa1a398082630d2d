// The csv export: one row per measurement with its run's provenance, quoted as RFC 4180 asks.
#include <cmath>
#include <ostream>
#include <sstream>

#include "formats.hpp"

namespace cutune::detail {
namespace {

constexpr const char* kHeader =
    "run_uid,host,started_at,cutune_version,device,cc,sm_count,device_uuid,driver_version,nvrtc_version,kernel,"
    "kernel_hash,shape,config,status,median_ms,min_ms,max_ms,spread,metric,max_error,registers,compile_ms,"
    "samples_ms,measured_at,spill_bytes,static_smem_bytes,dynamic_smem_bytes,threads_per_block,blocks,blocks_per_sm,"
    "peak,flush,verify_ms,benchmark_ms,framework_ms,search_ms,message";

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
  out << kHeader << "\n";
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
      out << run_fields << "," << field(m.shape) << "," << field(r.config) << "," << to_string(r.status) << ","
          << number(r.median_ms) << "," << number(r.min_ms) << "," << number(r.max_ms) << "," << number(r.spread)
          << "," << number(r.metric) << "," << number(r.max_error) << "," << r.registers << ","
          << number(r.compile_ms) << "," << field(samples) << "," << field(m.measured_at) << ","
          << r.spill_bytes << "," << r.static_smem_bytes << "," << r.dynamic_smem_bytes << "," << r.threads_per_block
          << "," << r.blocks << "," << r.blocks_per_sm << "," << number(r.peak) << "," << to_string(run.flush) << ","
          << number(r.verify_ms) << "," << number(r.benchmark_ms) << "," << number(r.framework_ms) << ","
          << number(r.search_ms) << "," << field(r.message) << "\n";
    }
  }
}

}  // namespace cutune::detail
