// Best-configuration lookups: the exact query and the fallback chain (nearest shape, same compute capability).
#include <cmath>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "cutune/lookup_keys.hpp"
#include "lookup.hpp"

namespace cutune {
namespace detail {
namespace {

// Statements are reused: each use ends with a reset, so that no read transaction stays open between lookups
// (an open one would pin an old snapshot and keep the WAL from being checkpointed).
class Use {
 public:
  explicit Use(SQLite::Statement& statement) : statement_(statement) {}
  ~Use() { statement_.tryReset(); }  // every parameter is bound again on the next use
  Use(const Use&) = delete;
  Use& operator=(const Use&) = delete;
  SQLite::Statement* operator->() { return &statement_; }
  SQLite::Statement& operator*() { return statement_; }

 private:
  SQLite::Statement& statement_;
};

const std::string kTuned = std::string("r.current = 1 AND r.") + kUsableStatus + " AND r.median_ms IS NOT NULL";

}  // namespace
}  // namespace detail

Database::Statements::Statements(SQLite::Database& db)
    : find_device(db, "SELECT d.id FROM devices d WHERE " + std::string(detail::kDeviceKeyMatch)),
      find_kernel(db, "SELECT id FROM kernels WHERE name = ? AND hash = ?"),
      // SQLite walks results_best in its order ('ok' sorts before 'unverified') and stops at the first row.
      exact(db, "SELECT " + detail::result_columns() + ", " + detail::kDeviceColumns +
                    ", k.name, k.hash FROM results r JOIN runs ru ON ru.id = r.run_id "
                    "JOIN devices d ON d.id = r.device_id JOIN kernels k ON k.id = r.kernel_id "
                    "WHERE r.device_id = :device_id AND r.kernel_id = :kernel_id AND r.flush = :flush AND "
                    "r.shape = :shape AND " +
                    detail::kTuned + " ORDER BY r.status, r.median_ms, r.config LIMIT 1"),
      latest_on_device(db, "SELECT k.hash FROM devices d JOIN results r ON r.device_id = d.id "
                           "JOIN kernels k ON k.id = r.kernel_id WHERE " + std::string(detail::kDeviceKeyMatch) +
                           " AND k.name = :kernel ORDER BY r.measured_at DESC, r.id DESC LIMIT 1"),
      latest_on_arch(db, "SELECT k.hash FROM devices d JOIN results r ON r.device_id = d.id "
                         "JOIN kernels k ON k.id = r.kernel_id WHERE d.cc_major = :cc_major AND d.cc_minor = :cc_minor "
                         "AND k.name = :kernel ORDER BY r.measured_at DESC, r.id DESC LIMIT 1"),
      device_shapes(db, "SELECT shape FROM tuned WHERE kernel_id = ? AND device_id = ? AND flush = ?"),
      arch_shapes(db, "SELECT d.id, d.name, d.sm_count, t.shape FROM tuned t JOIN devices d ON d.id = t.device_id "
                      "WHERE t.kernel_id = ? AND t.flush = ? AND d.cc_major = ? AND d.cc_minor = ?"),
      memo(db) {}

std::optional<std::int64_t> Database::Statements::device_id(const DeviceIdentity& device) {
  std::string key = normalized_device_name(device.name);
  for (const int n : {device.cc_major, device.cc_minor, device.sm_count}) {
    key += '\0';
    key += std::to_string(n);
  }
  if (const auto it = device_ids_.find(key); it != device_ids_.end()) return it->second;
  detail::Use find(find_device);
  detail::bind_device_key(*find, device);
  if (!find->executeStep()) return std::nullopt;
  return device_ids_[key] = find->getColumn(0).getInt64();
}

std::optional<std::int64_t> Database::Statements::kernel_id(const std::string& name, const std::string& hash) {
  std::string key = name;
  key += '\0';
  key += hash;
  if (const auto it = kernel_ids_.find(key); it != kernel_ids_.end()) return it->second;
  detail::Use find(find_kernel);
  find->bind(1, name);
  find->bind(2, hash);
  if (!find->executeStep()) return std::nullopt;
  return kernel_ids_[key] = find->getColumn(0).getInt64();
}

std::string_view to_string(Match m) {
  switch (m) {
    case Match::Exact:
      return "exact shape";
    case Match::NearestShape:
      return "nearest tuned shape";
    case Match::SameArchitecture:
      return "same compute capability";
    case Match::Predicted:
      return "predicted";
    case Match::Default:
      return "spec default";
  }
  return "unknown";
}

namespace {

std::optional<BestConfig> exact_best(Database::Statements& s, const std::filesystem::path& path,
                                     std::int64_t device_id, std::int64_t kernel_id, L2Flush flush,
                                     const std::string& shape) {
  detail::Use select(s.exact);
  select->bind(":device_id", device_id);
  select->bind(":kernel_id", kernel_id);
  select->bind(":flush", std::string(to_string(flush)));
  select->bind(":shape", shape);
  if (!select->executeStep()) return std::nullopt;
  BestConfig best;
  best.result = detail::read_result(*select, path);
  best.device = detail::read_device(*select, detail::result_column_count());
  best.kernel.name = select->getColumn(detail::result_column_count() + detail::kDeviceColumnCount).getString();
  best.kernel.hash = select->getColumn(detail::result_column_count() + detail::kDeviceColumnCount + 1).getString();
  best.shape = shape;
  best.flush = flush;
  return best;
}

// Without a hash, the version measured last on this device (any shape) is the current one: results of an older
// source must not win just because the newer one has not been tuned for this shape yet.
std::optional<std::string> resolve_hash(Database::Statements& s, const BestQuery& query, bool allow_arch) {
  if (!query.kernel_hash.empty()) return query.kernel_hash;
  {
    detail::Use latest(s.latest_on_device);
    detail::bind_device_key(*latest, query.device);
    latest->bind(":kernel", query.kernel);
    if (latest->executeStep()) return latest->getColumn(0).getString();
  }
  if (!allow_arch) return std::nullopt;
  detail::Use latest(s.latest_on_arch);
  latest->bind(":cc_major", query.device.cc_major);
  latest->bind(":cc_minor", query.device.cc_minor);
  latest->bind(":kernel", query.kernel);
  if (latest->executeStep()) return latest->getColumn(0).getString();
  return std::nullopt;
}



// Everything a lookup's answer depends on; `rule` tells best() from best_with_fallback().
std::string memo_key(char rule, const BestQuery& q) {
  std::string key(1, rule);
  for (const std::string* text : {&q.kernel, &q.kernel_hash, &q.device.name, &q.shape}) {
    key += *text;
    key += '\0';
  }
  for (const int n : {q.device.cc_major, q.device.cc_minor, q.device.sm_count, static_cast<int>(q.flush)}) {
    key += std::to_string(n);
    key += '\0';
  }
  return key;
}

std::optional<BestConfig> find_best(Database::Statements& s, const std::filesystem::path& path,
                                    const BestQuery& query) {
  const auto hash = resolve_hash(s, query, false);
  if (!hash) return std::nullopt;
  const auto device_id = s.device_id(query.device);
  const auto kernel_id = s.kernel_id(query.kernel, *hash);
  if (!device_id || !kernel_id) return std::nullopt;
  return exact_best(s, path, *device_id, *kernel_id, query.flush, query.shape);
}

// The tuned shape of this device nearest to the query's; ties go to the smaller shape text, so the answer never
// depends on row order.
std::optional<BestConfig> nearest_on_device(Database::Statements& s, const std::filesystem::path& path,
                                            std::int64_t device_id, std::int64_t kernel_id, const BestQuery& query) {
  std::string nearest;
  double nearest_distance = std::numeric_limits<double>::infinity();
  {
    detail::Use shapes(s.device_shapes);
    shapes->bind(1, kernel_id);
    shapes->bind(2, device_id);
    shapes->bind(3, std::string(to_string(query.flush)));
    while (shapes->executeStep()) {
      const std::string shape = shapes->getColumn(0).getString();
      const double d = shape_distance(query.shape, shape);
      if (d < nearest_distance || (d == nearest_distance && std::isfinite(d) && shape < nearest)) {
        nearest = shape;
        nearest_distance = d;
      }
    }
  }
  if (!std::isfinite(nearest_distance)) return std::nullopt;
  auto found = exact_best(s, path, device_id, kernel_id, query.flush, nearest);
  if (found) {
    found->match = Match::NearestShape;
    found->distance = nearest_distance;
  }
  return found;
}

// Another device of the same compute capability: nearest shape first, then the nearest SM count.
std::optional<BestConfig> nearest_on_architecture(Database::Statements& s, const std::filesystem::path& path,
                                                  std::int64_t kernel_id, const BestQuery& query) {
  struct Candidate {
    double distance;
    int sm_gap;
    std::string name;
    std::string shape;
    std::int64_t device_id;
  };
  std::optional<Candidate> chosen;
  {
    detail::Use rows(s.arch_shapes);
    rows->bind(1, kernel_id);
    rows->bind(2, std::string(to_string(query.flush)));
    rows->bind(3, query.device.cc_major);
    rows->bind(4, query.device.cc_minor);
    while (rows->executeStep()) {
      Candidate c;
      c.device_id = rows->getColumn(0).getInt64();
      c.name = rows->getColumn(1).getString();
      c.sm_gap = std::abs(rows->getColumn(2).getInt() - query.device.sm_count);
      c.shape = rows->getColumn(3).getString();
      c.distance = shape_distance(query.shape, c.shape);
      if (!std::isfinite(c.distance)) continue;
      const auto rank = [](const Candidate& x) { return std::tie(x.distance, x.sm_gap, x.name, x.shape); };
      if (!chosen || rank(c) < rank(*chosen)) chosen = std::move(c);
    }
  }
  if (!chosen) return std::nullopt;
  auto found = exact_best(s, path, chosen->device_id, kernel_id, query.flush, chosen->shape);
  if (found) {
    found->match = Match::SameArchitecture;
    found->distance = chosen->distance;
  }
  return found;
}

std::optional<BestConfig> find_best_with_fallback(Database::Statements& s, const std::filesystem::path& path,
                                                  const BestQuery& query) {
  const auto hash = resolve_hash(s, query, true);
  if (!hash) return std::nullopt;
  const auto kernel_id = s.kernel_id(query.kernel, *hash);
  if (!kernel_id) return std::nullopt;
  if (const auto device_id = s.device_id(query.device)) {
    if (auto found = exact_best(s, path, *device_id, *kernel_id, query.flush, query.shape)) return found;
    if (auto found = nearest_on_device(s, path, *device_id, *kernel_id, query)) return found;
  }
  return nearest_on_architecture(s, path, *kernel_id, query);
}

}  // namespace

std::optional<BestConfig> Database::best(const BestQuery& query) {
  detail::connection(db_, path_);
  return detail::guarded(path_, "looking up the best configuration", [&]() -> std::optional<BestConfig> {
    const std::string key = memo_key('E', query);
    if (const auto* known = statements_->memo.find(key)) return *known;
    return statements_->memo.keep(key, find_best(*statements_, path_, query));
  });
}

std::optional<BestConfig> Database::best_with_fallback(const BestQuery& query) {
  detail::connection(db_, path_);
  return detail::guarded(path_, "looking up the best configuration", [&]() -> std::optional<BestConfig> {
    const std::string key = memo_key('F', query);
    if (const auto* known = statements_->memo.find(key)) return *known;
    return statements_->memo.keep(key, find_best_with_fallback(*statements_, path_, query));
  });
}

}  // namespace cutune
