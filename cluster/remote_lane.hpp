// Rank 0's view of another rank: a lane that sends its jobs over MPI, and the thread that hears their results.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/transport.hpp"
#include "tuner/lanes.hpp"

namespace cutune::cluster {

class RemoteLane;

/// Receives every message on rank 0 on one thread and hands each result to the lane of the rank that sent it.
/// Lanes register themselves while they live, so that a result never reaches a lane that is gone.
class RemoteRegistry {
 public:
  explicit RemoteRegistry(Transport& transport);
  ~RemoteRegistry();
  RemoteRegistry(const RemoteRegistry&) = delete;
  RemoteRegistry& operator=(const RemoteRegistry&) = delete;

  Transport& transport() { return transport_; }
  void add(int rank, RemoteLane* lane);
  void remove(int rank);

 private:
  void listen();

  Transport& transport_;
  std::mutex mutex_;
  std::map<int, RemoteLane*> lanes_;
  std::atomic<bool> quit_{false};
  std::thread thread_;  // last: it starts once everything it uses exists
};

/// The GPU of one other rank: submit() sends the shape's spec and source the first time the shape appears, then the
/// configuration's text with the binary rank 0 compiled, if it did; the rank's answer is posted to the outbox as a
/// local lane's is. A rank on another host also compiles for itself when nothing compiled is ready (its CPUs are not
/// rank 0's); one on rank 0's host waits for rank 0's compile pool, as a local GPU does, instead of taking CPUs from it.
class RemoteLane final : public detail::Lane {
 public:
  RemoteLane(std::size_t id, int rank, std::string name, bool compiles_itself, RemoteRegistry& registry,
             detail::Outbox& outbox);
  ~RemoteLane() override;

  std::string name() const override { return name_; }
  int ordinal() const override { return -1; }  // not a GPU of this machine
  bool compiles_itself() const override { return compiles_itself_; }
  void submit(detail::Job job) override;

  /// The rank's answer to the job it holds (called on the registry's thread).
  void answered(const Message& body);

 private:
  std::size_t id_;
  int rank_;
  std::string name_;
  bool compiles_itself_;
  RemoteRegistry& registry_;
  detail::Outbox& outbox_;
  std::mutex mutex_;
  std::optional<detail::Job> job_;
  std::size_t prepared_ = 0;  // the ShapeTask id the rank has the spec of
  std::uint64_t sent_ = 0;    // the number of the job sent last: the rank echoes it, so a stale answer is told apart
};

}  // namespace cutune::cluster
