// Stores compiled kernels on disk, one checksummed file per key, written atomically and trimmed by age.
#include "cutune/cubin_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "cutune/target.hpp"
#include "base/log.hpp"
#include "device_headers.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'C', 'U', 'T', 'U', 'N', 'E', 'C', '1'};

void put_u32(std::string& out, std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_bytes(std::string& out, const std::string& s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

// Reads the fields put_* wrote; every read is bounds-checked, so a damaged file is rejected, never trusted.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool u32(std::uint32_t& v) {
    if (data_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, data_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool bytes(std::string& s) {
    std::uint32_t n = 0;
    if (!u32(n) || data_.size() - pos_ < n) return false;
    s.assign(data_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

std::string serialize(const CompileOutput& out) {
  std::string payload;
  put_bytes(payload, out.lowered_name);
  put_u32(payload, static_cast<std::uint32_t>(out.registers));
  put_u32(payload, static_cast<std::uint32_t>(out.spill_bytes));
  put_bytes(payload, out.log);
  put_bytes(payload, out.cubin);
  std::string file(kMagic, sizeof kMagic);
  file += hash_hex(payload);
  file += payload;
  return file;
}

std::optional<CompileOutput> deserialize(const std::string& file) {
  constexpr std::size_t header = sizeof kMagic + 16;
  if (file.size() < header || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  const std::string_view payload = std::string_view(file).substr(header);
  if (file.compare(sizeof kMagic, 16, hash_hex(payload)) != 0) return std::nullopt;
  CompileOutput out;
  Reader r(payload);
  std::uint32_t registers = 0, spills = 0;
  if (!r.bytes(out.lowered_name) || !r.u32(registers) || !r.u32(spills) || !r.bytes(out.log) || !r.bytes(out.cubin) ||
      !r.done() || out.cubin.empty()) {
    return std::nullopt;
  }
  out.ok = true;
  out.registers = static_cast<int>(registers);
  out.spill_bytes = static_cast<int>(spills);
  return out;
}

}  // namespace

fs::path CubinCache::default_directory() {
  if (const char* dir = std::getenv("CUTUNE_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') return fs::path(xdg) / "cutune";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "cutune";
  return fs::temp_directory_path() / "cutune-cache";
}

CubinCache::CubinCache(fs::path directory, std::uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

// The key hashes source, kernel, architecture, NVRTC version, the standard headers and include folders that every
// compile sees (device_headers.hpp), the spec's options and the compile's own, separated by NULs; two 64-bit hashes of
// differently salted text make a 128-bit key that keeps accidental collisions out of reach.
CubinKeys::CubinKeys(const KernelSpec& spec, const std::string& kernel) : spec_(spec) {
  salted_.add("cutune-cubin\n");
  const std::string_view nul("\0", 1);
  for (HashHex* h : {&plain_, &salted_}) h->add(spec.source).add(nul).add(kernel).add(nul);
}

std::string CubinKeys::key(const std::vector<std::string>& options, const std::string& arch) const {
  std::string text = arch + '\0' + std::to_string(nvrtc_version()) + '\0' + detail::device_headers().key;
  for (const auto& o : spec_.compile_options) text += '\0' + o;
  text += '\0';
  for (const auto& o : options) text += '\0' + o;
  return HashHex(plain_).add(text).hex() + HashHex(salted_).add(text).hex();
}

std::string CubinKeys::config_key(const Config& config, const std::string& arch, const Shape* shape) const {
  CompileOutput failed;
  const auto options = config_options_or(spec_, config, shape, failed);
  return options ? key(*options, compile_arch(spec_, config, arch)) : std::string();
}

std::string CubinCache::key(const KernelSpec& spec, const std::string& kernel, const std::vector<std::string>& options,
                            const std::string& arch) {
  return CubinKeys(spec, kernel).key(options, arch);
}

bool CubinCache::contains(const std::string& key) const {
  std::error_code ignored;
  return fs::exists(directory_ / (key + ".cubin"), ignored);
}

std::optional<CompileOutput> CubinCache::load(const std::string& key) {
  const fs::path path = directory_ / (key + ".cubin");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ++misses_;
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  auto out = deserialize(buffer.str());
  if (!out) {
    detail::logger()->warn("cubin cache entry {} is damaged; removing it and compiling again", path.string());
    std::error_code ignored;
    fs::remove(path, ignored);
    ++misses_;
    return std::nullopt;
  }
  std::error_code ignored;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);  // recently used: trimmed last
  ++hits_;
  return out;
}

void CubinCache::store(const std::string& key, const CompileOutput& output) {
  if (!output.ok) return;
  std::error_code error;
  fs::create_directories(directory_, error);
  const fs::path path = directory_ / (key + ".cubin");
  const fs::path temporary = directory_ / (key + "." + std::to_string(::getpid()) + "." +
                                           std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    const std::string data = serialize(output);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      detail::logger()->warn("cannot write the cubin cache in {}: compiles will not be reused", directory_.string());
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, path, error);
  if (error) fs::remove(temporary, error);
  // Trimming scans the folder: do it now and then, not on every store.
  if (++stored_since_trim_ % 64 == 1) trim();
}

void CubinCache::trim() {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    std::uint64_t size;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code error;
  for (const auto& e : fs::directory_iterator(directory_, error)) {
    if (e.path().extension() != ".cubin") continue;
    std::error_code e1, e2;
    const auto size = e.file_size(e1);
    const auto time = e.last_write_time(e2);
    if (e1 || e2) continue;
    entries.push_back({e.path(), time, size});
    total += size;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  // Down to 90% of the bound, so that the next few stores do not trim again.
  for (const auto& e : entries) {
    if (total <= max_bytes_ / 10 * 9) break;
    if (fs::remove(e.path, error)) total -= e.size;
  }
}

CompileOutput CubinCache::load_or_compile(const std::string& key, const std::function<CompileOutput()>& compile) {
  const auto start = std::chrono::steady_clock::now();
  const auto waited = [start](CompileOutput out) {
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.from_cache = true;
    return out;
  };
  if (auto hit = load(key)) return waited(std::move(*hit));
  std::promise<CompileOutput> mine;
  std::shared_future<CompileOutput> theirs;
  {
    std::lock_guard lock(compiling_mutex_);
    if (const auto it = compiling_.find(key); it != compiling_.end()) {
      theirs = it->second;
    } else {
      compiling_.emplace(key, mine.get_future().share());
    }
  }
  if (theirs.valid()) return waited(theirs.get());
  const auto done = [this, &key] {
    std::lock_guard lock(compiling_mutex_);
    compiling_.erase(key);
  };
  try {
    // Stored meanwhile by a compile that ended between the load above and this thread's turn.
    if (auto hit = load(key)) {
      mine.set_value(*hit);
      done();
      return waited(std::move(*hit));
    }
    CompileOutput out = compile();
    store(key, out);
    mine.set_value(out);
    done();
    return out;
  } catch (...) {
    mine.set_exception(std::current_exception());
    done();
    throw;
  }
}

namespace {

CompileOutput compile_through(CubinCache* cache, const KernelSpec& spec, const std::string& kernel,
                              const std::vector<std::string>& options, const std::string& arch) {
  if (cache == nullptr) return compile(spec, kernel, options, arch);
  return cache->load_or_compile(CubinCache::key(spec, kernel, options, arch),
                                [&] { return compile(spec, kernel, options, arch); });
}

}  // namespace

CompileOutput compile_config_cached(CubinCache* cache, const KernelSpec& spec, const Config& config,
                                    const std::string& arch, const Shape* shape) {
  if (spec.library) return library_call(spec);
  CompileOutput failed;
  const auto options = config_options_or(spec, config, shape, failed);
  if (!options) return failed;
  return compile_through(cache, spec, spec.kernel, *options, compile_arch(spec, config, arch));
}

CompileOutput compile_reference_cached(CubinCache* cache, const KernelSpec& spec, const std::string& arch,
                                       const Shape* shape) {
  if (spec.reference_config) return compile_config_cached(cache, spec, *spec.reference_config, arch, shape);
  return compile_through(cache, spec, spec.reference_kernel, reference_defines(spec, shape), arch);
}

}  // namespace cutune
