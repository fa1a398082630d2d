// The MPI side of a cluster run: JSON messages sent as tagged CBOR between ranks, and where this rank runs.
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cutune::cluster {

using Message = nlohmann::json;

/// What a message is; the MPI tag it travels under.
enum class Tag : int { Hello = 1, Prepare = 2, Job = 3, Result = 4, Stop = 5 };

struct Envelope {
  int source = 0;
  Tag tag = Tag::Stop;
  Message body;
};

/// A message as it travels: CBOR, which keeps binary values (a compiled kernel) binary; JSON text would turn them into
/// an object that reads back as something else.
std::vector<std::uint8_t> encode(const Message& body);
/// The message encode() made; throws InputError for bytes that are not one.
Message decode(const std::vector<std::uint8_t>& bytes);

/// True when this process is one rank of an MPI launch of more than one rank (mpirun, srun, another PMI launcher).
bool launched_by_mpi();

/// MPI for the life of the object: initialised with MPI_THREAD_MULTIPLE, because rank 0's lanes send from their own
/// threads while one thread receives. One per process.
class Transport {
 public:
  Transport();
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// This rank's index among the ranks of its node: the GPU it measures on.
  int local_rank() const { return local_rank_; }
  const std::string& host() const { return host_; }

  void send(int to, Tag tag, const Message& body);
  /// The next message from any rank, if one has arrived; never waits.
  std::optional<Envelope> poll();
  /// Waits for the next message from any rank.
  Envelope receive();

 private:
  Envelope take(int source, int tag, int bytes);

  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  std::string host_;
};

}  // namespace cutune::cluster
