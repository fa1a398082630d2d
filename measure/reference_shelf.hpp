// Reference outputs kept for reuse when a spec's reference follows some parameters of the configuration it checks:
// one set per distinct reference configuration, the least recently used given up first.
#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <utility>

namespace cutune::detail {

/// Sets of reference outputs (`Outputs`: the device buffers of one reference run) by the reference configuration's
/// canonical form. Holds at most `capacity` bytes: putting a set that does not fit gives up the least recently put or
/// taken ones, and a set larger than the whole capacity is not kept at all.
template <typename Outputs>
class ReferenceShelf {
 public:
  explicit ReferenceShelf(std::size_t capacity = 0) : capacity_(capacity) {}

  void set_capacity(std::size_t bytes) {
    capacity_ = bytes;
    shrink(0);
  }
  std::size_t capacity() const { return capacity_; }
  /// Bytes held and sets held.
  std::size_t bytes() const { return bytes_; }
  std::size_t size() const { return shelf_.size(); }

  /// Keeps `outputs` under `key` (replacing a set of the same key), giving up older sets to make room.
  void put(std::string key, Outputs outputs, std::size_t bytes) {
    drop(key);
    if (bytes > capacity_) return;
    shrink(bytes);
    shelf_.push_front(Entry{std::move(key), std::move(outputs), bytes});
    bytes_ += bytes;
  }

  /// The set kept under `key`, taken off the shelf (its caller uses it, then puts it back); nullopt when none is.
  std::optional<Outputs> take(const std::string& key) {
    for (auto it = shelf_.begin(); it != shelf_.end(); ++it) {
      if (it->key != key) continue;
      std::optional<Outputs> out(std::move(it->outputs));
      bytes_ -= it->bytes;
      shelf_.erase(it);
      return out;
    }
    return std::nullopt;
  }

  void clear() {
    shelf_.clear();
    bytes_ = 0;
  }

 private:
  struct Entry {
    std::string key;
    Outputs outputs;
    std::size_t bytes = 0;
  };

  void drop(const std::string& key) { (void)take(key); }
  // Gives up the least recently used sets until `incoming` more bytes fit.
  void shrink(std::size_t incoming) {
    while (!shelf_.empty() && bytes_ + incoming > capacity_) {
      bytes_ -= shelf_.back().bytes;
      shelf_.pop_back();
    }
  }

  std::size_t capacity_;
  std::size_t bytes_ = 0;
  std::list<Entry> shelf_;  // most recently put first
};

}  // namespace cutune::detail
