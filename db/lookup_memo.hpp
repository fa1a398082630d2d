// Answers of best-configuration lookups kept in memory while the database file does not change: an application asks
// the same few questions again and again, and SQLite's answer takes several times the 5 us a lookup may cost.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "cutune/database.hpp"

namespace cutune::detail {

class LookupMemo {
 public:
  explicit LookupMemo(SQLite::Database& db) : db_(db), data_version_(db, "PRAGMA data_version") {}

  /// The remembered answer to `key`, or nullptr. Every call first asks SQLite whether the file changed since the
  /// answers were found: PRAGMA data_version counts commits of other connections (other processes included),
  /// sqlite3_total_changes64 this connection's own; either moving forgets every answer.
  const std::optional<BestConfig>* find(const std::string& key) {
    data_version_.executeStep();
    const std::int64_t version = data_version_.getColumn(0).getInt64();
    data_version_.tryReset();  // no read transaction stays open between lookups
    const std::int64_t changes = sqlite3_total_changes64(db_.getHandle());
    if (version != version_ || changes != changes_) {
      answers_.clear();
      version_ = version;
      changes_ = changes;
    }
    const auto it = answers_.find(key);
    return it == answers_.end() ? nullptr : &it->second;
  }

  /// Remembers an answer found since the last find(); a bounded number of them (an application's shapes).
  const std::optional<BestConfig>& keep(const std::string& key, std::optional<BestConfig> answer) {
    if (answers_.size() >= kMaxAnswers) answers_.clear();
    return answers_[key] = std::move(answer);
  }

 private:
  static constexpr std::size_t kMaxAnswers = 4096;
  SQLite::Database& db_;
  SQLite::Statement data_version_;
  std::int64_t version_ = -1;
  std::int64_t changes_ = -1;
  std::unordered_map<std::string, std::optional<BestConfig>> answers_;
};

}  // namespace cutune::detail
