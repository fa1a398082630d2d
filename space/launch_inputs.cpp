// Launch quantities known before compiling (launch_inputs.hpp).
#include "cutune/launch_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cutune/error.hpp"

namespace cutune {
namespace {

// An SM count no GPU has: a persistent grid (min(tiles, PERSIST * SM_COUNT)) resolves to its units of work.
constexpr std::int64_t kUnboundedSms = std::int64_t{1} << 20;
// What every SM of compute capability 8.0 and later holds at most, and what each block reserves of shared memory.
constexpr std::int64_t kThreadsPerSm = 2048;
constexpr std::int64_t kBlocksPerSm = 32;
constexpr std::int64_t kReservedSharedPerBlock = 1024;

double grid_blocks(const Launch& launch) {
  return static_cast<double>(launch.grid[0]) * static_cast<double>(launch.grid[1]) * static_cast<double>(launch.grid[2]);
}

const std::vector<std::string> kNames = {"blocks", "units", "resident", "waves", "slot_use", "shared_memory",
                                         "threads", "work_per_unit"};
constexpr std::size_t kSlotUse = 4;  // favoured high
// A slot use that counts as full: at or above it, a configuration is favoured even below the space's median. Without
// it the median of a space whose launches all keep at least 94% of the slots busy (copy2d_tma at 8192², 10 to 993
// waves) shut out 125 of the 127 configurations within 5% of the optimum (bench/RESULTS.md,
// "The launch's waves, narrowed").
constexpr double kFullEnough = 0.9;

}  // namespace

double work_units(const KernelSpec& spec, const Config& config, const Shape& shape) {
  return std::max(1.0, grid_blocks(spec.resolve(spec.launch, config, shape, kUnboundedSms)));
}

std::int64_t resident_blocks_estimate(const Launch& launch, const DeviceLimits& limits) {
  const std::int64_t per_sm_shared = limits.max_shared_per_block_optin + kReservedSharedPerBlock;
  const std::int64_t by_shared = per_sm_shared / (std::max<std::int64_t>(launch.shared_memory, 0) + kReservedSharedPerBlock);
  const std::int64_t by_threads = kThreadsPerSm / std::max<std::int64_t>(launch.threads(), 1);
  return std::max<std::int64_t>(1, std::min({by_shared, by_threads, kBlocksPerSm}));
}

SearchInputs launch_inputs(const KernelSpec& spec, const std::vector<Config>& configs, const Shape& shape,
                          const DeviceLimits& limits) {
  SearchInputs out{kNames, {}, {kSlotUse}, {kFullEnough}};
  out.values.reserve(configs.size() * kNames.size());
  const double amount = spec.metric.kind == Metric::Kind::Time ? std::numeric_limits<double>::quiet_NaN()
                                                                 : spec.metric_amount(shape);
  const double sms = static_cast<double>(std::max<std::int64_t>(limits.sm_count, 1));
  for (const auto& config : configs) {
    try {
      const Launch launch = spec.resolve(spec.launch, config, shape, limits.sm_count);
      const double units = work_units(spec, config, shape);
      const double resident = static_cast<double>(resident_blocks_estimate(launch, limits));
      const double waves = units / (sms * resident);
      out.values.insert(out.values.end(), {grid_blocks(launch), units, resident, waves, waves / std::ceil(waves),
                                           static_cast<double>(launch.shared_memory),
                                           static_cast<double>(launch.threads()), amount / units});
    } catch (const Error&) {
      out.values.insert(out.values.end(), kNames.size(), std::numeric_limits<double>::quiet_NaN());
    }
  }
  return out;
}

}  // namespace cutune
