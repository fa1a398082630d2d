// MPI messages as JSON text: one MPI_Send of the serialised bytes per message, the tag saying what it is.
#include "transport.hpp"

#include <mpi.h>

#include <cstdlib>
#include <exception>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/stop.hpp"

namespace cutune::cluster {
namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : -1;
}

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// The launchers say it directly; otherwise the ranks that share memory (one node) are counted.
int node_local_rank(int rank) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"}) {
    if (const int v = env_int(name); v >= 0) return v;
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}) {
    if (env_int(name) > 1) return true;
  }
  return false;
}

Transport::Transport() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    throw Error("this MPI library does not support MPI_THREAD_MULTIPLE, which a cluster run needs");
  }
  // Errors come back as codes (and become exceptions) instead of aborting every rank without a word.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  local_rank_ = node_local_rank(rank_);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
}

// MPI_Finalize waits for every rank. After a stop request (the launcher ends the job because a rank died) or an
// error on this rank (others may wait for a message from it forever) the process leaves without it: the launcher then
// sees a rank end without finalising and ends the whole job, instead of every rank waiting for the others.
Transport::~Transport() {
  if (!stop_requested() && std::uncaught_exceptions() == 0) MPI_Finalize();
}

std::vector<std::uint8_t> encode(const Message& body) { return Message::to_cbor(body); }

Message decode(const std::vector<std::uint8_t>& bytes) {
  try {
    return Message::from_cbor(bytes);
  } catch (const Message::exception& e) {
    throw InputError(std::string("a message from another rank is damaged: ") + e.what());
  }
}

void Transport::send(int to, Tag tag, const Message& body) {
  const std::vector<std::uint8_t> bytes = encode(body);
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, static_cast<int>(tag), MPI_COMM_WORLD),
        "MPI_Send");
}

Envelope Transport::take(int source, int tag, int bytes) {
  std::vector<std::uint8_t> data(static_cast<std::size_t>(bytes));
  check(MPI_Recv(data.data(), bytes, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  Envelope out;
  out.source = source;
  out.tag = static_cast<Tag>(tag);
  out.body = decode(data);
  return out;
}

std::optional<Envelope> Transport::poll() {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (arrived == 0) return std::nullopt;
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  return take(status.MPI_SOURCE, status.MPI_TAG, bytes);
}

Envelope Transport::receive() {
  MPI_Status status;
  check(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status), "MPI_Probe");
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  return take(status.MPI_SOURCE, status.MPI_TAG, bytes);
}

}  // namespace cutune::cluster
