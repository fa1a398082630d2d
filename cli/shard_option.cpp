// The --shard i/n option of tuning and counting: one deterministic part of each shape's space per job.
#include "commands.hpp"
#include "cutune/error.hpp"

namespace cutune::cli {

void add_shard_option(CLI::App& app, std::string& shard) {
  app.add_option("--shard", shard,
                 "i/n: only part i of n of each shape's space (i from 1, as SLURM_ARRAY_TASK_ID with --array=1-n); "
                 "the parts interleave and never overlap, --budget applies to each part, and `tune db merge` joins "
                 "the parts' databases");
}


}  // namespace cutune::cli
