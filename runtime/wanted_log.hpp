// What a Runtime records of the shapes it found no result of their own for (Database::add_wanted): each new one at
// once, so that an application killed later still leaves it; the counts of repeated requests when the Runtime ends.
// A read-only database keeps them here, for Runtime::wanted() and save_wanted().
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "cutune/database.hpp"

namespace cutune::detail {

class WantedLog {
 public:
  struct Entry {
    WantedShape key;  // its count and times are filled by shapes()
    std::int64_t count = 0;
    std::int64_t stored = 0;  // of `count`, what the database has
    std::chrono::system_clock::time_point first;
    std::chrono::system_clock::time_point last;
  };

  /// A lookup of `key` found no result for its shape: adds it (stored at once) or counts it again.
  Entry& note(WantedShape key, Database* db);
  /// One more request of a noted shape (a repeated kernel()): a count and a clock read, nothing written.
  static void count(Entry& e) {
    ++e.count;
    e.last = std::chrono::system_clock::now();
  }
  /// Writes the counts the database does not have yet; on a read-only database (or none) keeps them here.
  void store(Database* db);
  /// Every shape noted by this Runtime, with its counts and times.
  std::vector<WantedShape> shapes() const;

 private:
  std::deque<Entry> entries_;  // stable addresses: kernels point at their entry
  bool unwritable_ = false;    // the database refused a write: nothing more is tried
};

}  // namespace cutune::detail
