// The tuning request (cutune/requests.hpp): the kernel and shapes it names, its options checked once, and the run on
// this machine's GPUs that `tune` and the Python package's tune() share.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string_view>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/operation.hpp"
#include "cutune/requests.hpp"
#include "cutune/spec_follow.hpp"
#include "cutune/t1.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

// Opens the database; removes it again when this call created it and the command then fails before use.
class FreshDatabaseGuard {
 public:
  explicit FreshDatabaseGuard(const std::filesystem::path& path) : path_(path), existed_(std::filesystem::exists(path)) {}
  ~FreshDatabaseGuard() {
    if (!keep_ && !existed_) {
      std::error_code ignored;
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix, ignored);
    }
  }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool existed_;
  bool keep_ = false;
};

}  // namespace

// A T1 problem describes one problem size: --shapes may only repeat it.
std::vector<Shape> problem_shapes(const KernelSpec& spec, const Shape& problem_shape, const std::string& text) {
  if (text.empty()) return {problem_shape};
  std::vector<Shape> shapes = parse_shapes(spec, text);
  for (const Shape& s : shapes) {
    if (!(s == problem_shape)) {
      throw InputError("T1 problem " + spec.name + " describes one problem size, " + problem_shape.str() +
                       " (its ProblemSize), not " + s.str() + "; leave out --shapes");
    }
  }
  return shapes;
}

KernelSpec load_chosen_kernel(const std::string& kernel, const std::string& spec_file, const std::string& problem_file,
                              std::optional<Shape>* problem_shape, bool for_tuning) {
  const int given = !kernel.empty() + !spec_file.empty() + !problem_file.empty();
  if (given != 1) throw InputError("give one of --kernel, --spec and --problem");
  if (!spec_file.empty()) return load_spec_file(spec_file);
  if (kernel.empty()) {
    T1Problem problem = read_t1(problem_file);
    for (const T1Issue& issue : problem.issues) std::cerr << problem.spec.name << ": " << issue.str() << "\n";
    if (for_tuning) problem.require_tunable();
    if (problem_shape != nullptr) *problem_shape = problem.shape;
    return std::move(problem.spec);
  }
  return load_kernel(kernel);
}

MeasureOptions resolve_measure_choices(MeasureOptions measure, const std::string& verify, const std::string& flush) {
  measure.flush = flush_from_option(flush);
  if (!verify.empty()) {
    measure.verify = parse_verify_mode(verify);
    if (!measure.verify) throw InputError("--verify '" + verify + "': expected reference, default or none");
  }
  if (measure.verify == VerifyMode::None && (measure.atol || measure.rtol)) {
    throw InputError("--atol and --rtol bound the comparison that --verify none leaves out");
  }
  return measure;
}

std::optional<L2Flush> flush_from_option(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto flush = parse_l2_flush(text);
  if (!flush) throw InputError("--flush '" + text + "': expected one of " + std::string(kL2FlushNames));
  return flush;
}

std::vector<Shape> parse_shapes(const KernelSpec& spec, const std::string& text) {
  std::vector<Shape> shapes;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    shapes.push_back(spec.parse_shape(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shapes;
}

std::vector<ShapeReport> tune_each(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes,
                                   const DeviceIdentity& identity, const Shape*& current, const TuneHooks& hooks) {
  std::vector<ShapeReport> reports;
  if (hooks.starting) hooks.starting();
  tuner.expect(spec, shapes);  // every shape's space is enumerated while the first ones tune
  for (const Shape& shape : shapes) {
    current = &shape;
    reports.push_back(tuner.tune(spec, shape));
    if (hooks.report) hooks.report(identity, reports.back());
  }
  return reports;
}

namespace {

// Throws InputError unless `value` lies in the field's range, and is whole where the field takes whole numbers.
template <typename Field>
void check_in_range(const Field& field, double value) {
  const bool whole = !is_integer(field) || value == std::floor(value);
  if (!(value >= field.least && value <= field.most) || !whole) {
    std::ostringstream text;
    text << field.name << " " << value << " is not " << (is_integer(field) ? "a whole number" : "a number")
         << " from " << field.least << " to " << field.most;
    throw InputError(text.str());
  }
}

// An operation's plan: its implementations, each tuned under its own name; options that name one kernel's
// parameters are refused, as they would mean something else in each implementation.
TunePlan prepare_operation_tune(const TuneRequest& request, TunePlan plan) {
  if (!request.where.empty() || !plan.options.start.empty() || !request.follow.empty()) {
    throw InputError("--where, --start and --follow name one kernel's parameters: give them with --kernel "
                     "<implementation> (" + request.kernel + " is an operation)");
  }
  if (!request.spec.empty() || !request.problem.empty()) throw InputError("give one of --kernel, --spec and --problem");
  plan.operation = load_operation(request.kernel);
  plan.spec = plan.operation->implementations.front();
  plan.shapes = parse_shapes(plan.spec, request.shapes);
  return plan;
}

}  // namespace

void check_number(const MeasureOptionField& field, double value) { check_in_range(field, value); }

void check_number(const TuneOptionField& field, double value) { check_in_range(field, value); }

void set_number(TuneOptions& options, std::string_view name, double value) {
  for (const auto& f : kTuneOptionFields) {
    if (f.name != name) continue;
    check_number(f, value);
    set_option(options, f, value);
    return;
  }
  for (const auto& f : kMeasureOptionFields) {
    if (f.name != name) continue;
    check_number(f, value);
    set_option(options.measure, f, value);
    return;
  }
  std::string known;
  for (const auto& f : kTuneOptionFields) known += (known.empty() ? "" : ", ") + std::string(f.name);
  for (const auto& f : kMeasureOptionFields) known += ", " + std::string(f.name);
  throw InputError("unknown option '" + std::string(name) + "' (known: " + known + ")");
}

TuneOptions check_tune_request(const TuneRequest& request) {
  TuneOptions options = request.options;
  for (const auto& [name, value] : {std::pair{"atol", options.measure.atol}, std::pair{"rtol", options.measure.rtol}}) {
    if (value && !(*value >= 0.0 && std::isfinite(*value))) {
      throw InputError(std::string(name) + " " + std::to_string(*value) + " is not a number >= 0");
    }
  }
  options.measure = resolve_measure_choices(options.measure, request.verify, request.flush);
  for (const auto& f : kMeasureOptionFields) check_number(f, option_value(options.measure, f));
  for (const auto& f : kTuneOptionFields) check_number(f, option_value(options, f));
  if (!(options.time_budget_s >= 0.0)) throw InputError("time_budget must be seconds >= 0");
  options.shard = parse_shard(request.shard);
  return options;
}

TunePlan prepare_tune(const TuneRequest& request) {
  TunePlan plan{check_tune_request(request), {}, {}, {}};
  if (!request.kernel.empty() && is_operation(request.kernel)) return prepare_operation_tune(request, std::move(plan));
  std::optional<Shape> problem_shape;
  plan.spec = load_chosen_kernel(request.kernel, request.spec, request.problem, &problem_shape, true);
  if (!request.follow.empty()) plan.spec = follow_parameters(plan.spec, request.follow);  // before --where: rebuilt
  for (const auto& w : request.where) plan.spec.restrict_to(w);
  for (const auto& c : plan.options.start) plan.spec.parse_config(c);  // a malformed --start fails before any work
  plan.shapes = problem_shape ? problem_shapes(plan.spec, *problem_shape, request.shapes)
                              : parse_shapes(plan.spec, request.shapes);
  return plan;
}

std::vector<ShapeReport> tune_on_this_machine(const TuneRequest& request, const TunePlan& plan, const TuneHooks& hooks) {
  FreshDatabaseGuard guard(request.db);
  Database db(request.db);
  std::vector<std::unique_ptr<Device>> devices;
  const DeviceChoice choice = choose_devices(request, devices);
  guard.keep();

  const Shape* current = nullptr;
  TuneOptions options = plan.options;
  ProgressTap tap;
  options.on_progress = [&hooks, &current, &tap](const Progress& p) {
    if (tap) tap(p);
    if (hooks.progress) hooks.progress(*current, p);
  };
  // One tuner for every shape: its worker processes stay up from one shape to the next.
  Tuner tuner = choice.ordinals.size() == 1 ? Tuner(*devices.front(), db, options)
                                            : Tuner(choice.identity, choice.limits, choice.ordinals, db, options);
  if (plan.operation) {
    return tune_operation(tuner, *plan.operation, plan.shapes, options.budget, choice.identity, current, hooks, &tap);
  }
  return tune_each(tuner, plan.spec, plan.shapes, choice.identity, current, hooks);
}

DeviceChoice choose_devices(const TuneRequest& request, std::vector<std::unique_ptr<Device>>& opened) {
  const bool listed = !request.devices.empty();
  const std::string text = listed ? request.devices : std::to_string(request.device);
  const std::string option = listed ? "--devices" : "--device";
  const DeviceList list = parse_device_list(text, option);  // a typo is reported before the GPUs are looked at
  const int count = Device::count();
  if (count == 0) throw NoDeviceError(Device::unavailable_reason());
  const std::vector<int> ordinals = resolve_device_list(list, count, option);
  std::vector<DeviceIdentity> identities;
  std::vector<DeviceLimits> limits;
  for (int ordinal : ordinals) {
    opened.push_back(std::make_unique<Device>(ordinal));
    identities.push_back(opened.back()->identity());
    limits.push_back(opened.back()->limits());
  }
  if (ordinals.size() > 1 && !request.options.isolate) {
    throw InputError("--no-isolate measures in this process, on one GPU: leave it out to tune on several");
  }
  return one_model(ordinals, identities, limits, option + " " + text);
}

Shard parse_shard(const std::string& text) {
  if (text.empty()) return {};
  try {
    return Shard::parse(text);
  } catch (const InputError& e) {
    throw InputError(std::string("--") + e.what());
  }
}

}  // namespace cutune
