// Rank 0: hears every rank's GPU, refuses a mix of models, and makes one remote lane per other rank.
#include <set>

#include "cluster/cluster.hpp"
#include "cluster/device_message.hpp"
#include "cluster/remote_lane.hpp"
#include "cutune/database.hpp"
#include "cutune/device_choice.hpp"
#include "cutune/error.hpp"

namespace cutune::cluster {
namespace {

std::string describe(const DeviceIdentity& d) {
  return normalized_device_name(d.name) + " (" + d.arch() + ", " + std::to_string(d.sm_count) + " SMs)";
}

}  // namespace

ClusterLanes::ClusterLanes(Transport& transport, const LocalGpu& mine) : transport_(transport), limits_(mine.limits) {
  std::vector<std::pair<int, LocalGpu>> peers;
  std::set<int> heard;
  while (static_cast<int>(heard.size()) + 1 < transport_.size()) {
    const Envelope message = transport_.receive();
    if (message.tag != Tag::Hello || !heard.insert(message.source).second) continue;
    peers.emplace_back(message.source, local_gpu_from_message(message.body));
    if (message.body.value("host", std::string()) != transport_.host()) elsewhere_.insert(message.source);
  }
  std::sort(peers.begin(), peers.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string others;
  for (const auto& [rank, gpu] : peers) {
    if (!same_model(gpu.identity, mine.identity)) {
      others += (others.empty() ? "" : ", ") + std::string("rank ") + std::to_string(rank) + " has " + describe(gpu.identity);
    }
    limits_ = most_restrictive(limits_, gpu.limits);
    names_.push_back("rank " + std::to_string(rank) + " GPU " + std::to_string(gpu.ordinal));
  }
  if (!others.empty()) {
    stop_ranks();
    throw InputError("the ranks of this job have GPUs of different models (rank 0 has " + describe(mine.identity) +
                     ", " + others + "); one run keeps one model's results: launch one job per model");
  }
  registry_ = std::make_unique<RemoteRegistry>(transport_);
}

ClusterLanes::~ClusterLanes() {
  registry_.reset();
  stop_ranks();
}

void ClusterLanes::stop_ranks() {
  for (int rank = 1; rank < transport_.size(); ++rank) {
    try {
      transport_.send(rank, Tag::Stop, Message::object());
    } catch (const std::exception&) {
      // a rank that is gone needs no stop
    }
  }
}

std::vector<RemoteLaneSource> ClusterLanes::lanes() const {
  std::vector<RemoteLaneSource> out;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const int rank = static_cast<int>(i) + 1;
    RemoteRegistry* registry = registry_.get();
    const std::string name = names_[i];
    const bool compiles = elsewhere_.count(rank) > 0;
    out.push_back({name, [rank, name, registry, compiles](std::size_t id,
                                                         detail::Outbox& outbox) -> std::unique_ptr<detail::Lane> {
                     return std::make_unique<RemoteLane>(id, rank, name, compiles, *registry, outbox);
                   }});
  }
  return out;
}

}  // namespace cutune::cluster
