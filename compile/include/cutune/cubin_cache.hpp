// The on-disk cubin cache: never compile the same (source, configuration, options, architecture, NVRTC) twice.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "cutune/compiler.hpp"

namespace cutune {

/// A folder of compiled kernels keyed by a hash of everything that determines the binary. Entries carry a
/// checksum: a damaged entry is detected, removed and rebuilt. Safe for several threads and processes (entries
/// are written to a temporary name and renamed). The folder is kept under its size bound by removing the
/// least recently used entries.
class CubinCache {
 public:
  /// $CUTUNE_CACHE_DIR, else $XDG_CACHE_HOME/cutune, else ~/.cache/cutune.
  static std::filesystem::path default_directory();
  static constexpr std::uint64_t kDefaultMaxBytes = 2ull << 30;  ///< 2 GiB

  explicit CubinCache(std::filesystem::path directory = default_directory(), std::uint64_t max_bytes = kDefaultMaxBytes);

  /// The key of a configuration's compile: a hash of source, defines, options, architecture and NVRTC version.
  static std::string key(const KernelSpec& spec, const std::string& kernel, const std::vector<std::string>& options,
                         const std::string& arch);

  /// Whether an entry is stored under `key` (without reading or checking it).
  bool contains(const std::string& key) const;
  /// The stored compile, or nullopt when absent or damaged (a damaged entry is removed).
  std::optional<CompileOutput> load(const std::string& key);
  /// Stores a successful compile; failures are not cached. Never throws: a cache that cannot be written only
  /// costs compile time.
  void store(const std::string& key, const CompileOutput& output);
  /// The compile stored under `key`, else `compile()`'s output, stored. While a thread compiles a key, another that asks
  /// for the same key waits for that compile rather than compiling it again (a compile ahead of the search and the
  /// search's own proposal of the same configuration). from_cache is set, and ms is the wait, when this call did not
  /// compile; what `compile` throws reaches every caller waiting for it.
  CompileOutput load_or_compile(const std::string& key, const std::function<CompileOutput()>& compile);

  const std::filesystem::path& directory() const { return directory_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  void trim();

  std::filesystem::path directory_;
  std::uint64_t max_bytes_;
  std::atomic<std::uint64_t> hits_ = 0;
  std::atomic<std::uint64_t> misses_ = 0;
  std::atomic<std::uint64_t> stored_since_trim_ = 0;
  std::mutex compiling_mutex_;
  std::map<std::string, std::shared_future<CompileOutput>> compiling_;  // keys being compiled in this process
};

/// CubinCache::key() of many compiles of one kernel of one spec, its source hashed once: the keys of candidate
/// configurations cost microseconds each, not a pass over the whole source.
class CubinKeys {
 public:
  CubinKeys(const KernelSpec& spec, const std::string& kernel);
  std::string key(const std::vector<std::string>& options, const std::string& arch) const;
  /// The key of compile_config_cached(cache, spec, config, arch, shape); the spec's kernel only. The same at every
  /// shape unless the configuration is shape-specialized (KernelSpec::shape_specialized()); empty when a define needs
  /// the shape and `shape` is null.
  std::string config_key(const Config& config, const std::string& arch, const Shape* shape = nullptr) const;

 private:
  const KernelSpec& spec_;
  HashHex plain_, salted_;  // after the source and the kernel's name
};

/// compile_config() through a cache (null: no cache); from_cache says where the answer came from. A configuration whose
/// defines do not name the shape has one entry for every shape; a shape-specialized one, one per shape.
CompileOutput compile_config_cached(CubinCache* cache, const KernelSpec& spec, const Config& config,
                                    const std::string& arch, const Shape* shape = nullptr);

/// compile_reference() through a cache (null: no cache).
CompileOutput compile_reference_cached(CubinCache* cache, const KernelSpec& spec, const std::string& arch,
                                       const Shape* shape = nullptr);

}  // namespace cutune
