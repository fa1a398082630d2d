// `tune best` and cutune.best(): the stored best configuration of a kernel at a shape, by the runtime's fallback chain;
// of an operation, the implementation the runtime launches there and each implementation's own.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/lookup_keys.hpp"
#include "cutune/operation.hpp"
#include "cutune/requests.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

// The devices with results of this kernel under this L2 convention (of --gpu's name when given), each once.
std::vector<DeviceIdentity> stored_devices(Database& db, const std::string& kernel, L2Flush flush,
                                           const std::string& gpu) {
  std::vector<DeviceIdentity> candidates;
  for (const auto& e : db.entries()) {
    if (e.kernel.name != kernel || e.flush != flush) continue;
    if (!gpu.empty() && e.device.name != normalized_device_name(gpu)) continue;
    bool seen = false;
    for (const auto& d : candidates) seen = seen || (d.name == e.device.name && d.cc_major == e.device.cc_major &&
                                                      d.cc_minor == e.device.cc_minor && d.sm_count == e.device.sm_count);
    if (!seen) candidates.push_back(e.device);
  }
  return candidates;
}

// This machine's first GPU unless --gpu names one; else the one device the database holds results of.
DeviceIdentity best_device(const BestRequest& args, const std::vector<DeviceIdentity>& candidates, const KernelSpec& spec,
                           L2Flush flush) {
  if (args.gpu.empty() && Device::count() > 0) return Device(0).identity();
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) {
    throw InputError("no results for " + spec.name + (args.gpu.empty() ? "" : " on '" + args.gpu + "'") +
                     " measured under L2 flush " + std::string(to_string(flush)) + " in " + args.db);
  }
  std::string names;
  for (const auto& d : candidates) names += (names.empty() ? "" : ", ") + d.name;
  throw InputError("results for several devices (" + names + "): choose one with --gpu");
}

// Which fallback rule matched, and from where.
std::string rule_text(const BestConfig& found, const DeviceIdentity& device) {
  std::ostringstream rule;
  rule << to_string(found.match);
  if (found.match == Match::NearestShape || found.match == Match::SameArchitecture) {
    rule << " (" << found.shape << ", log distance " << std::setprecision(3) << found.distance << ")";
  } else if (found.match == Match::Predicted) {
    rule << " fastest of this GPU's measured configurations (measured at " << found.shape << ", log distance "
         << std::setprecision(3) << found.distance << ")";
  } else if (found.match == Match::Default) {
    rule << " (nothing of this version tuned on " << device.arch() << ")";
  }
  return rule.str();
}

}  // namespace

namespace {

// The database a best-configuration request reads, which must exist.
Database open_for_best(const BestRequest& args) {
  if (!std::filesystem::exists(args.db)) throw InputError("database '" + args.db + "' does not exist");
  return Database(args.db);
}

// One kernel's answer at the shape on `device`, or nothing with --exact when this very shape has no result.
std::optional<FoundBest> best_of(Database& db, const BestRequest& args, const KernelSpec& spec,
                                 const DeviceIdentity& device, L2Flush flush) {
  const Shape shape = spec.parse_shape(args.shape);
  // The fallback chain answers for shapes and GPUs nobody tuned; --exact asks for this very shape only.
  const std::optional<BestConfig> found = args.exact ? db.best({spec.name, spec.hash, device, shape.str(), flush})
                                                     : choose_config(&db, spec, device, shape, flush);
  if (!found) return std::nullopt;
  if (auto why = invalid_config(spec, found->result.config, found->shape)) {  // choose_config checked the others
    throw DatabaseError("database " + args.db + ": the stored best configuration of " + spec.name + " at " +
                        found->shape + " is not valid: " + *why);
  }
  return FoundBest{spec, device, flush, *found, rule_text(*found, device), {}, {}, {}};
}

// An operation's answer: each implementation's, and the one the runtime launches (under --exact, the fastest measured
// at the shape).
FoundBest find_operation_best(const BestRequest& args) {
  const OperationSpec operation = load_operation(args.kernel);
  const KernelSpec& first = operation.implementations.front();
  const Shape shape = operation.parse_shape(args.shape);
  const L2Flush flush = first.l2_flush(flush_from_option(args.flush));
  Database db = open_for_best(args);
  std::vector<DeviceIdentity> stored;
  for (const KernelSpec& spec : operation.implementations) {
    for (const DeviceIdentity& d : stored_devices(db, spec.name, flush, args.gpu)) {
      if (std::none_of(stored.begin(), stored.end(), [&](const DeviceIdentity& s) { return same_device_key(s, d); })) {
        stored.push_back(d);
      }
    }
  }
  const DeviceIdentity device = best_device(args, stored, first, flush);
  std::vector<FoundBest> each;
  std::optional<std::size_t> winner;
  for (const KernelSpec& spec : operation.implementations) {
    std::optional<FoundBest> found = best_of(db, args, spec, device, flush);
    if (!found) continue;
    if (!winner || found->found.result.median_ms < each[*winner].found.result.median_ms) winner = each.size();
    each.push_back(std::move(*found));
  }
  if (!winner) {
    throw InputError("no correct configuration of any implementation of " + operation.name + " for shape " +
                     shape.str() + " on " + device.name + " measured under L2 flush " + std::string(to_string(flush)) +
                     " in " + args.db);
  }
  std::string reason = "the fastest of the implementations measured at this shape";
  if (!args.exact) {
    const OperationChoice choice = choose_operation(&db, operation, device, shape, flush);
    winner = choice.implementation;
    reason = choice.reason;
  }
  FoundBest out = each[*winner];
  out.operation = operation.name;
  out.reason = std::move(reason);
  out.implementations = std::move(each);
  return out;
}

}  // namespace

FoundBest find_best(const BestRequest& args) {
  if (is_operation(args.kernel)) return find_operation_best(args);
  const KernelSpec spec = load_kernel(args.kernel);
  const Shape shape = spec.parse_shape(args.shape);
  const L2Flush flush = spec.l2_flush(flush_from_option(args.flush));
  Database db = open_for_best(args);
  const DeviceIdentity device = best_device(args, stored_devices(db, spec.name, flush, args.gpu), spec, flush);
  std::optional<FoundBest> found = best_of(db, args, spec, device, flush);
  if (!found) {
    throw InputError("no correct configuration of " + spec.name + " (this version, " + spec.hash + ") for shape " +
                     shape.str() + " on " + device.name + " measured under L2 flush " +
                     std::string(to_string(flush)) + " in " + args.db);
  }
  return std::move(*found);
}

}  // namespace cutune
