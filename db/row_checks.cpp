// What a stored row may hold. Runs read from files other people wrote (merge, import) are untrusted input: each text
// is bounded and of its expected form, times are finite and not negative, and a configuration of a kernel this
// cutune knows (a built-in of the same version) must be one of its valid configurations.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cutune/error.hpp"
#include "cutune/templates.hpp"
#include "store.hpp"

namespace cutune::detail {

// A value as it may appear in an error message: short, and with control characters shown as escapes.
std::string shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 80)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += "\\x";
      out += "0123456789abcdef"[(c >> 4) & 0xf];
      out += "0123456789abcdef"[c & 0xf];
    } else {
      out += c;
    }
  }
  if (text.size() > 80) out += "... (" + std::to_string(text.size()) + " characters)";
  return "'" + out + "'";
}

bool has_control(std::string_view text, bool allow_newlines) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (allow_newlines && (c == '\n' || c == '\t' || c == '\r')) continue;
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

bool is_shape_text(std::string_view s) {
  if (s.empty() || s.front() == 'x' || s.back() == 'x' || s.find("xx") != std::string_view::npos) return false;
  for (const char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != 'x') return false;
  return true;
}

namespace {

constexpr std::size_t kMaxName = 256;       // uid, device and kernel names, hash, shape, times
constexpr std::size_t kMaxText = 4096;      // host, command, version, a configuration
constexpr std::size_t kMaxMessage = 65536;  // a compile log
constexpr std::size_t kMaxSamples = 100000;

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (const char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// NAME=VALUE,... with identifiers for names and plain tokens (numbers, or words such as True) for values: nothing
// that could be read as a compiler option or break a line.
bool is_config_text(std::string_view s) {
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto comma = std::min(s.find(',', start), s.size());
    const auto item = s.substr(start, comma - start);
    const auto equals = item.find('=');
    if (equals == std::string_view::npos || !is_identifier(item.substr(0, equals))) return false;
    const auto value = item.substr(equals + 1);
    if (value.empty()) return false;
    for (const char c : value)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+' && c != '_') return false;
    start = comma + 1;
  }
  return true;
}

// A time that is unknown (NaN: a failed configuration) or finite and not negative.
bool is_time(double ms) { return std::isnan(ms) || (std::isfinite(ms) && ms >= 0.0); }

// The built-in spec of this kernel version, when this cutune has it.
const KernelSpec* known_spec(const KernelIdentity& kernel, std::map<std::string, std::optional<KernelSpec>>& known) {
  auto [it, fresh] = known.try_emplace(kernel.name + '\0' + kernel.hash);
  if (fresh) {
    for (const auto& name : builtin_kernels()) {
      if (name != kernel.name) continue;
      KernelSpec spec = load_kernel(name);
      if (spec.hash == kernel.hash) it->second = std::move(spec);
    }
  }
  return it->second ? &*it->second : nullptr;
}

// Figures no GPU can give (result_fields.hpp's bounds): negative, infinite and absurd values from a hostile file.
// NaN passes: it is how an unknown figure reads back.
std::optional<std::string> invalid_figures(const Result& r) {
  for (const ResultField& f : kResultFields) {
    if (f.what.empty()) continue;
    const double value = field_value(r, f);
    if (value < f.least || value > f.most) {
      const std::string shown =
          is_integer(f) ? fmt::format("{}", static_cast<std::int64_t>(value)) : fmt::format("{}", value);
      std::string why = "an invalid ";  // appended: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
      why += f.what;
      return why + " " + shown;
    }
  }
  return std::nullopt;
}

// The checks of one run, each failure one InputError that names the source and the run.
class RunCheck {
 public:
  RunCheck(const RunRecord& run, std::string_view source)
      : run_(run), where_(source.empty() ? std::string() : std::string(source) + ": ") {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where_ + "run " + shown(run_.uid) + " cannot be stored: " + what);
  }

  void bounded(std::string_view field, std::string_view text, std::size_t most, bool newlines) const {
    if (text.size() > most) fail(std::string(field) + " " + shown(text) + " is longer than " + std::to_string(most));
    if (has_control(text, newlines)) fail(std::string(field) + " " + shown(text) + " holds control characters");
  }

  void run_fields() const {
    if (run_.uid.empty()) fail("it has no uid");
    bounded("its uid", run_.uid, kMaxName, false);
    if (run_.kernel.name.empty() || run_.kernel.hash.empty()) fail("its kernel has no name or hash");
    bounded("its kernel name", run_.kernel.name, kMaxName, false);
    bounded("its kernel hash", run_.kernel.hash, kMaxName, false);
    if (normalized_device_name(run_.device.name).empty()) fail("its device has no name");
    bounded("its device name", run_.device.name, kMaxName, false);
    bounded("its device uuid", run_.device.uuid, kMaxName, false);
    if (run_.started_at.empty()) fail("it has no start time");
    bounded("its start time", run_.started_at, kMaxName, false);
    bounded("its host", run_.host, kMaxText, false);
    bounded("its cutune version", run_.cutune_version, kMaxName, false);
    bounded("its command", run_.command, kMaxText, false);
    if (const auto& t = run_.times) {
      for (const auto& [name, field] : kPhaseTimeFields) {
        const double s = (*t).*field;
        if (!std::isfinite(s) || s < 0) fail("its " + std::string(name) + " is " + std::to_string(s));
      }
    }
  }

  // Measurement i (from 0); `spec`, when this cutune knows the kernel, says which configurations are valid.
  void measurement(std::size_t i, const KernelSpec* spec) const {
    const Measurement& m = run_.measurements[i];
    const Result& r = m.result;
    const std::string row = "measurement " + std::to_string(i + 1) + " ";
    if (m.shape.empty() || r.config.empty() || m.measured_at.empty()) {
      fail("a measurement lacks its shape, configuration or time");
    }
    if (!is_shape_text(m.shape) || m.shape.size() > kMaxName) fail(row + "has an invalid shape " + shown(m.shape));
    if (r.config.size() > kMaxText || !is_config_text(r.config)) {
      fail(row + "has an invalid configuration " + shown(r.config) + " (expected NAME=VALUE,...)");
    }
    bounded(row + "time", m.measured_at, kMaxName, false);
    bounded(row + "message", r.message, kMaxMessage, true);
    times(r, row);
    if (r.registers < 0 || r.registers > 65536) fail(row + "has an invalid register count " + std::to_string(r.registers));
    if (auto why = invalid_figures(r)) fail(row + "(" + r.config + ") has " + *why);
    if (spec != nullptr) {
      if (auto why = invalid_config(*spec, r.config, m.shape)) fail(row + shown(r.config) + " of " + spec->name + ": " + *why);
    }
  }

 private:
  void times(const Result& r, const std::string& row) const {
    if (r.samples_ms.size() > kMaxSamples) fail(row + "has more than " + std::to_string(kMaxSamples) + " samples");
    for (const double t : r.samples_ms) {
      if (!std::isfinite(t) || t < 0) fail(row + "(" + r.config + ") has an invalid time sample " + std::to_string(t));
    }
    for (const double t : {r.median_ms, r.min_ms, r.max_ms, r.compile_ms, r.verify_ms, r.benchmark_ms, r.framework_ms,
                           r.search_ms}) {
      if (!is_time(t)) fail(row + "(" + r.config + ") has an invalid time " + std::to_string(t) + " ms");
    }
    if (usable(r.status) && !std::isfinite(r.median_ms)) {
      fail(row + "(" + r.config + ") is " + std::string(to_string(r.status)) + " but has no median time");
    }
  }

  const RunRecord& run_;
  std::string where_;
};

}  // namespace

void check_record(const RunRecord& run, std::string_view source) {
  const RunCheck check(run, source);
  check.run_fields();
  std::map<std::string, std::optional<KernelSpec>> known;
  const KernelSpec* spec = known_spec(run.kernel, known);
  for (std::size_t i = 0; i < run.measurements.size(); ++i) check.measurement(i, spec);
}

}  // namespace cutune::detail
