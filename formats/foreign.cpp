// What the T4 and Kernel Tuner cache formats share: the GPU table, foreign identities, statuses and failure names,
// typed configurations, gzip, timestamps.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <ctime>
#include <fstream>
#include <istream>
#include <limits>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/spec.hpp"
#include "cutune/timing.hpp"
#include "foreign_formats.hpp"
#include "formats.hpp"


namespace cutune {
namespace detail {
namespace {

struct GpuEntry {
  std::string_view model;  // upper case, as it appears inside a device name
  KnownGpu gpu;
};

// Published specifications of the GPUs that tuning data in the wild was measured on. Longer names come first so
// that "2080 TI" is not taken for "2080". GPUs whose model name has variants with different SM counts (H100 SXM
// and PCIe) are left out: a wrong SM count would be worse than none.
constexpr std::array<GpuEntry, 12> kKnownGpus{{
    {"2080 TI", {7, 5, 68}},  {"2080TI", {7, 5, 68}}, {"2080", {7, 5, 46}},  {"3090 TI", {8, 6, 84}},
    {"3090", {8, 6, 82}},     {"4090", {8, 9, 128}},  {"A100", {8, 0, 108}}, {"A4000", {8, 6, 48}},
    {"A6000", {8, 6, 84}},    {"A40", {8, 6, 84}},    {"V100", {7, 0, 80}},  {"H200", {9, 0, 132}},
}};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// "A100" must not match inside "A1000", nor "A40" inside "A4000".
bool contains_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !is_word_char(text[at - 1]);
    const std::size_t end = at + word.size();
    const bool right = end == text.size() || !is_word_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

std::string inflate(std::string_view bytes, bool partial, const std::string& source) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw InputError("cannot read '" + source + "': zlib failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  std::array<char, 1 << 16> buffer{};
  int rc = Z_OK;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buffer.data());
    z.avail_out = static_cast<uInt>(buffer.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer.data(), buffer.size() - z.avail_out);
    // A gzip file may hold several members one after another.
    if (rc == Z_STREAM_END && z.avail_in > 0) rc = inflateReset(&z);
  } while (rc == Z_OK);
  inflateEnd(&z);
  if (rc != Z_STREAM_END && !(partial && rc == Z_BUF_ERROR)) {
    if (partial) return out;
    throw InputError("cannot read '" + source + "': damaged gzip data");
  }
  return out;
}

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace

std::string read_maybe_gzip(std::istream& in, const std::string& source) {
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError("cannot read '" + source + "'");
  std::string bytes = std::move(buffer).str();
  return is_gzip(bytes) ? inflate(bytes, false, source) : bytes;
}

std::string inflate_head(std::string_view head) {
  return is_gzip(head) ? inflate(head, true, "") : std::string(head);
}

std::optional<std::string> utc_from_foreign(std::string_view text) {
  std::tm tm{};
  int consumed = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%*1[ T]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(static_cast<std::size_t>(consumed));
  std::string fraction;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front()))) {
      fraction += rest.front();
      rest.remove_prefix(1);
    }
  }
  // Microseconds, always six digits, so that cutune's timestamps order correctly as text.
  fraction.resize(6, '0');
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  long offset_s = 0;
  if (rest.size() >= 3 && (rest.front() == '+' || rest.front() == '-')) {
    int hours = 0, minutes = 0;
    if (std::sscanf(std::string(rest.substr(1)).c_str(), "%2d:%2d", &hours, &minutes) < 1) return std::nullopt;
    offset_s = (rest.front() == '-' ? -1 : 1) * (hours * 3600L + minutes * 60L);
  } else if (!rest.empty() && rest != "Z" && rest != "UTC") {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t utc = timegm(&tm) - offset_s;
  std::tm out{};
  gmtime_r(&utc, &out);
  char text_out[32];
  std::strftime(text_out, sizeof text_out, "%Y-%m-%dT%H:%M:%S", &out);
  return std::string(text_out) + "." + fraction + "Z";
}

std::string_view kt_failure_name(Status s) {
  switch (s) {
    case Status::CompileError: return "CompilationFailedConfig";
    case Status::LaunchError: return "InvalidConfig";
    case Status::RuntimeError: return "RuntimeFailedConfig";
    default: return {};
  }
}

nlohmann::ordered_json configuration_object(const std::string& config) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : config_items(config)) {
    std::size_t used = 0;
    try {
      const long long i = std::stoll(value, &used);
      if (used == value.size()) {
        out[name] = i;
      } else {
        const double f = std::stod(value, &used);
        // JSON has no inf or nan: those stay text, as Python's str() writes them.
        out[name] = used == value.size() && std::isfinite(f) ? nlohmann::ordered_json(f) : nlohmann::ordered_json(value);
      }
    } catch (const std::exception&) {
      out[name] = value;
    }
  }
  return out;
}

Result foreign_result(std::string config, Status status, std::string message, std::optional<double> objective_ms,
                      std::vector<double> samples_ms, const ForeignTimes& times) {
  Result r;
  r.config = std::move(config);
  r.status = status;
  r.message = std::move(message);
  const Timing t = summarize(samples_ms);
  r.samples_ms = std::move(samples_ms);
  r.median_ms = objective_ms.value_or(t.median);
  r.min_ms = r.samples_ms.empty() ? r.median_ms : t.min;
  r.max_ms = r.samples_ms.empty() ? r.median_ms : t.max;
  r.spread = t.spread;
  r.compile_ms = times.compile.value_or(0.0);
  constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  r.verify_ms = times.verify.value_or(kUnknown);
  r.benchmark_ms = times.benchmark.value_or(kUnknown);
  r.framework_ms = times.framework.value_or(kUnknown);
  r.search_ms = times.search.value_or(kUnknown);
  return r;
}

RunRecord foreign_run(std::string_view format, const std::string& source, std::string_view content,
                      const std::string& device_name, const std::string& kernel_name,
                      const std::vector<std::string>& parameter_names) {
  RunRecord run;
  run.device.name = device_name;
  std::string note;
  if (const auto gpu = known_gpu(device_name)) {
    run.device.cc_major = gpu->cc_major;
    run.device.cc_minor = gpu->cc_minor;
    run.device.sm_count = gpu->sm_count;
    note = "; compute capability and SM count from cutune's table of GPUs";
  } else {
    note = "; the GPU is not in cutune's table: compute capability and SM count unknown (0)";
  }
  std::string names;
  for (const auto& n : parameter_names) {
    if (!names.empty()) names += ',';
    names += n;
  }
  run.kernel = {kernel_name, foreign_kernel_hash(kernel_name, names)};
  const std::string identity = std::string(format) + "\n" + device_name + "\n" + kernel_name;
  run.uid = hash_hex(std::string(format) + "\n" + std::string(content)) + hash_hex(identity);
  run.host = "(imported)";
  run.cutune_version = CUTUNE_VERSION;
  run.command = "tune db import: " + std::string(format) + " file '" +
                std::filesystem::path(source).filename().string() + "'" + note;
  return run;
}

}  // namespace detail

std::optional<KnownGpu> known_gpu(std::string_view device_name) {
  std::string upper = normalized_device_name(device_name);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const auto& entry : detail::kKnownGpus) {
    if (detail::contains_word(upper, entry.model)) return entry.gpu;
  }
  return std::nullopt;
}

std::string foreign_kernel_hash(std::string_view kernel_name, std::string_view parameter_names) {
  return hash_hex("foreign\n" + std::string(kernel_name) + "\n" + std::string(parameter_names));
}

Status foreign_status(std::string_view name) {
  if (name == "correct") return Status::Ok;
  if (name == "CompilationFailedConfig" || name == "compile") return Status::CompileError;
  if (name == "InvalidConfig" || name == "constraints") return Status::LaunchError;
  if (name == "timeout") return Status::Timeout;
  if (name == "correctness") return Status::WrongResult;
  return Status::RuntimeError;
}

ImportSummary import_foreign_file(Database& db, const std::filesystem::path& file, std::string_view format,
                                  const ForeignContext& context) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("cannot read '" + file.string() + "'");
  const std::array<ExchangeFormat, 2> formats{detail::t4_exchange_format(context),
                                              detail::kt_cache_exchange_format(context)};
  const ExchangeFormat* chosen = nullptr;
  if (!format.empty()) {
    for (const auto& f : formats)
      if (f.name == format) chosen = &f;
    if (!chosen) {
      throw InputError("--device, --kernel and --shape apply to t4 and kt-cache files, not to format '" +
                       std::string(format) + "'");
    }
  } else {
    const std::string head = detail::read_head(in);
    for (const auto& f : formats)
      if (f.detect(head)) chosen = &f;
    if (!chosen) throw InputError("'" + file.string() + "' is neither a T4 file nor a Kernel Tuner cache");
  }
  return db.add_runs(chosen->read(in, file.string()), file.string());
}

}  // namespace cutune
