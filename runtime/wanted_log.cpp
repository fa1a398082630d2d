// The Runtime's record of wanted shapes (wanted_log.hpp).
#include "wanted_log.hpp"

#include "cutune/error.hpp"
#include "base/log.hpp"

namespace cutune::detail {

namespace {

WantedShape with_counts(const WantedLog::Entry& e, std::int64_t count) {
  WantedShape w = e.key;
  w.count = count;
  w.first_at = utc_text(e.first);
  w.last_at = utc_text(e.last);
  return w;
}

}  // namespace

WantedLog::Entry& WantedLog::note(WantedShape key, Database* db) {
  for (Entry& e : entries_) {
    if (same_key(e.key, key)) {
      count(e);
      return e;
    }
  }
  Entry& e = entries_.emplace_back();
  e.key = std::move(key);
  e.count = 1;
  e.first = e.last = std::chrono::system_clock::now();
  store(db);
  return e;
}

void WantedLog::store(Database* db) {
  if (db == nullptr || unwritable_) return;
  std::vector<WantedShape> pending;
  for (const Entry& e : entries_) {
    if (e.count > e.stored) pending.push_back(with_counts(e, e.count - e.stored));
  }
  if (pending.empty()) return;
  try {
    db->add_wanted(pending);
  } catch (const Error& e) {
    // A read-only (installed) database, say: the application goes on, the shapes stay in memory.
    unwritable_ = true;
    logger()->warn("runtime: wanted shapes stay in memory (Runtime::wanted()): {}", e.what());
    return;
  }
  for (Entry& e : entries_) e.stored = e.count;
}

std::vector<WantedShape> WantedLog::shapes() const {
  std::vector<WantedShape> out;
  for (const Entry& e : entries_) out.push_back(with_counts(e, e.count));
  return out;
}

}  // namespace cutune::detail
