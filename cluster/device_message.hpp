// A rank's GPU as a JSON message, for the hello every rank sends rank 0.
#pragma once

#include "cluster/cluster.hpp"
#include "cluster/transport.hpp"

namespace cutune::cluster {

Message to_message(const LocalGpu& gpu);
LocalGpu local_gpu_from_message(const Message& m);

}  // namespace cutune::cluster
