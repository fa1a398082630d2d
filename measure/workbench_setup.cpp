// Sets up a Workbench: support kernels, argument buffers with their inputs, and the reference output.
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/resources.hpp"
#include "specs/embedded_support.hpp"
#include "driver/cluster_launch.hpp"
#include "compile/nvrtc.hpp"
#include "library_workbench.hpp"
#include "pipeline_workbench.hpp"
#include "driver/tensor_map_encode.hpp"
#include "workbench.hpp"

namespace cutune {
namespace detail {
namespace {

// In ElementType's order.
constexpr std::array<const char*, kElementTypes> kTypeNames = {
    "float",       "double",        "int",   "long long",      "unsigned",           "__nv_bfloat16", "__half",
    "signed char", "unsigned char", "short", "unsigned short", "unsigned long long", "bool", "__nv_fp8_e4m3",
    "__nv_fp8_e5m2"};

// The types of support module `part`: every kSupportParts-th type from `part` on, so that the parts compile in
// parallel (one module of all 53 kernels took 0.7-1.2 s, the first shape of a cold run waiting for it).
bool in_part(std::size_t type, std::size_t part) { return type % kSupportParts == part; }

// Support module `part`'s kernels, in the order SupportKernels reads their lowered names; part 0 also has flush_l2.
std::vector<std::string> support_names(std::size_t part) {
  std::vector<std::string> names;
  for (std::size_t t = 0; t < kTypeNames.size(); ++t) {
    if (!in_part(t, part)) continue;
    const std::string type = kTypeNames[t];
    names.push_back("fill_random<" + type + ">");
    names.push_back("fill_value<" + type + ">");
    names.push_back("compare<" + type + ">");
    names.push_back("mismatches<" + type + ">");
  }
  if (part == 0) names.push_back("flush_l2");
  return names;
}

// Compiled once per process, architecture and part; through the cubin cache, once per machine. The cache keeps one
// lowered name per entry, so a module's names travel joined by newlines.
const NvrtcOutput& support_binary(const std::string& arch, CubinCache* cache, std::size_t part) {
  static std::array<std::mutex, kSupportParts> mutexes;
  static std::array<std::map<std::string, NvrtcOutput>, kSupportParts> compiled;
  std::lock_guard lock(mutexes[part]);
  auto it = compiled[part].find(arch);
  if (it != compiled[part].end()) return it->second;
  const std::vector<std::string> names = support_names(part);
  KernelSpec support;
  support.source = std::string(support_source());
  const std::string key = CubinCache::key(support, "support part " + std::to_string(part), {}, arch);
  NvrtcOutput out;
  if (auto hit = cache ? cache->load(key) : std::nullopt) {
    out.ok = true;
    out.cubin = std::move(hit->cubin);
    std::istringstream lines(hit->lowered_name);
    for (std::string line; std::getline(lines, line);) out.lowered_names.push_back(line);
  }
  if (out.lowered_names.size() != names.size()) {
    out = nvrtc_compile(support.source, "support.cu", names, {}, arch);
    if (!out.ok) throw CudaError("cutune's support kernels do not compile for " + arch + ": " + out.log);
    if (cache) {
      CompileOutput entry;
      entry.ok = true;
      entry.cubin = out.cubin;
      for (const auto& n : out.lowered_names) entry.lowered_name += n + "\n";
      cache->store(key, entry);
    }
  }
  return compiled[part].emplace(arch, std::move(out)).first->second;
}

}  // namespace

void cache_support_kernels(const std::string& arch, CubinCache* cache, std::size_t part) {
  support_binary(arch, cache, part);
}

SupportKernels::SupportKernels(const std::string& arch, CubinCache* cache) {
  for (std::size_t part = 0; part < kSupportParts; ++part) {
    const NvrtcOutput& binary = support_binary(arch, cache, part);
    check(modules[part].load(binary.cubin), "cuModuleLoadData(support.cu)");
    const Module& module = modules[part];
    std::size_t k = 0;
    for (std::size_t t = 0; t < kTypeNames.size(); ++t) {
      if (!in_part(t, part)) continue;
      check(module.function(binary.lowered_names[k++], &fill_random[t]), "cuModuleGetFunction(fill_random)");
      check(module.function(binary.lowered_names[k++], &fill_value[t]), "cuModuleGetFunction(fill_value)");
      check(module.function(binary.lowered_names[k++], &compare[t]), "cuModuleGetFunction(compare)");
      check(module.function(binary.lowered_names[k++], &mismatches[t]), "cuModuleGetFunction(mismatches)");
    }
    if (part == 0) check(module.function(binary.lowered_names[k], &flush_l2), "cuModuleGetFunction(flush_l2)");
  }
}

}  // namespace detail

using detail::scalar_bytes;

Workbench::Impl::~Impl() {
  if (stream != nullptr) detail::driver().cuStreamDestroy(stream);
}

CUresult Workbench::Impl::launch_support(CUfunction f, std::uint64_t n, void** params) {
  const std::uint64_t wanted = (n + 255) / 256;
  const std::uint64_t cap = static_cast<std::uint64_t>(device.identity().sm_count) * 8;
  const unsigned blocks = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(wanted, cap)));
  return detail::driver().cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, stream, params, nullptr);
}

namespace {

// cutune's own random range for a type: floats in [-1, 1), signed integers in [-100, 100], unsigned in [0, 200],
// bool 0 or 1.
std::pair<double, double> default_range(ElementType t) {
  switch (t) {
    case ElementType::UInt32: case ElementType::UInt8: case ElementType::UInt16: case ElementType::UInt64:
      return {0.0, 200.0};
    case ElementType::Bool:
      return {0.0, 1.0};
    default:
      return is_integer(t) ? std::pair{-100.0, 100.0} : std::pair{-1.0, 1.0};
  }
}

// Values need an integral argument where the element type is an integer.
Value element_value(ElementType t, const Value& v) {
  return is_integer(t) && v.is_float() ? Value(static_cast<std::int64_t>(v.as_double())) : v;
}

}  // namespace

void Workbench::Impl::fill(const detail::DeviceArgument& arg, const FillRule& rule, CUdeviceptr p, std::uint64_t salt) {
  if (arg.count == 0) return;
  const ElementType type = arg.spec->type;
  const auto t = static_cast<std::size_t>(type);
  std::uint64_t n = arg.count;
  const std::size_t bytes = arg.count * element_size(type);
  switch (rule.kind) {
    case Fill::Zero:
    case Fill::Poison:
      CU_CHECK(cuMemsetD8Async, p, rule == Fill::Zero ? 0x00 : 0xff, bytes, stream);
      return;
    case Fill::Random:
    case Fill::Uniform:
    case Fill::Normal: {
      auto [lo, hi] = rule == Fill::Random ? default_range(type) : std::pair{rule.low, rule.high};
      int kind = rule == Fill::Normal ? 1 : 0;
      std::uint64_t seed = options.seed * 0x9e3779b97f4a7c15ull + salt;
      void* params[] = {&p, &n, &seed, &lo, &hi, &kind};
      detail::check(launch_support(support->fill_random[t], n, params), "fill_random");
      return;
    }
    case Fill::One:
    case Fill::Constant: {
      std::array<unsigned char, 8> value =
          scalar_bytes(type, rule == Fill::One ? Value(1) : element_value(type, rule.constant));
      void* params[] = {&p, &n, value.data()};
      detail::check(launch_support(support->fill_value[t], n, params), "fill_value");
      return;
    }
    case Fill::Generator:
    case Fill::File: {
      const std::vector<unsigned char> host = detail::host_fill(spec, *arg.spec, rule, shape, arg.count);
      CU_CHECK(cuMemcpyHtoD, p, host.data(), host.size());
      return;
    }
  }
}

void Workbench::Impl::reset_outputs() {
  for (auto& arg : args) {
    if (!arg.spec->is_buffer || !arg.spec->output) continue;
    if (arg.initial.get() != 0) {
      CU_CHECK(cuMemcpyDtoDAsync, arg.buffer.get(), arg.initial.get(), arg.buffer.bytes(), stream);
    } else {
      fill(arg, arg.spec->fill, arg.buffer.get(), 0);  // Poison, Zero, One or Constant: no data to keep
    }
  }
}

std::vector<void*> Workbench::Impl::parameters(const Config& config) {
  const std::vector<Value> scope = spec.scope(config, &shape);
  std::vector<void*> params;
  for (auto& arg : args) {
    if (!arg.spec->is_parameter()) {
      continue;  // only copied into its __constant__ symbol after the module loads
    } else if (arg.spec->is_buffer) {
      arg.pointer = arg.buffer.get();
      params.push_back(&arg.pointer);
    } else if (arg.spec->tensor_map) {
      params.push_back(&arg.map);
    } else {
      arg.scalar = scalar_bytes(arg.spec->type, arg.spec->value.eval(scope));
      params.push_back(arg.scalar.data());
    }
  }
  return params;
}

std::optional<std::string> Workbench::Impl::encode_tensor_maps(const Config& config) {
  for (auto& arg : args) {
    if (!arg.spec->tensor_map) continue;
    if (!tensor_map_used(spec, *arg.spec, config)) {
      arg.map = CUtensorMap{};  // the configuration never reads it
      continue;
    }
    try {
      const TensorMapLayout layout = tensor_map_layout(spec, *arg.spec, config, shape);
      const CUresult e = detail::encode_tensor_map(layout, args[layout.buffer_index].buffer.get(), &arg.map);
      if (e != CUDA_SUCCESS) return detail::describe(e, "cuTensorMapEncodeTiled") + " for " + arg.spec->name;
    } catch (const InputError& e) {
      return e.what();
    }
  }
  return std::nullopt;
}

CUresult Workbench::Impl::launch(CUfunction f, const Launch& l, std::vector<void*>& params) {
  return detail::launch_kernel(f, l, stream, params.data());
}

void Workbench::Impl::flush_l2() {
  if (flush == L2Flush::None) return;
  if (flush == L2Flush::Write) {  // as nvbench and Triton's do_bench: a memset leaves L2 full of dirty lines
    CU_CHECK(cuMemsetD32Async, flush_buffer.get(), 0, flush_buffer.bytes() / 4, stream);
    return;
  }
  CUdeviceptr p = flush_buffer.get();
  CUdeviceptr s = sink.get();
  std::uint64_t n = flush_buffer.bytes() / 16;
  void* params[] = {&p, &n, &s};
  detail::check(launch_support(support->flush_l2, n, params), "flush_l2");
}

Workbench::Workbench(const Device& device, const KernelSpec& spec, const Shape& shape, const MeasureOptions& options)
    : Workbench(device, spec, shape, options, spec.l2_flush(options.flush)) {}

Workbench::Workbench(const Device& device, const KernelSpec& spec, const Shape& shape, const MeasureOptions& options,
                     L2Flush flush)
    : impl_(std::make_unique<Impl>(device, spec, shape, options, flush)) {
  Impl& w = *impl_;
  device.make_current();
  CU_CHECK(cuStreamCreate, &w.stream, CU_STREAM_NON_BLOCKING);
  const std::vector<Value> scope = spec.scope(spec.default_config(), &shape);
  w.args.reserve(spec.arguments.size());
  for (const Argument& a : spec.arguments) {
    detail::DeviceArgument& arg = w.args.emplace_back();
    arg.spec = &a;
    if (!a.is_buffer) continue;
    for (const Parameter& p : spec.parameters) {
      if (a.size.uses(p.name)) {
        throw SpecError("spec " + spec.name + ": arguments." + a.name + ".size may use shape names only, not " + p.name);
      }
    }
    // An input of no elements is passed (as a valid address the kernel must not read), as Kernel Tuner passes an
    // empty array; an output of none would leave nothing to verify.
    const std::int64_t count = a.size.eval(scope).as_int();
    if (count < 0 || (count == 0 && a.output)) {
      throw InputError((a.output ? "output " : "argument ") + a.name + " of " + spec.name + " has " +
                       (count < 0 ? "a negative size (" + std::to_string(count) + ")" : std::string("no elements")) +
                       " at shape " + shape.str());
    }
    arg.count = static_cast<std::size_t>(count);
    arg.buffer = detail::DeviceBuffer(arg.count * element_size(a.type));
    if (a.output) arg.reference = detail::DeviceBuffer(arg.buffer.bytes());
  }
  w.stats = detail::DeviceBuffer(detail::kStatsWords * sizeof(std::uint64_t));
  w.plan_verification();
  w.sink = detail::DeviceBuffer(sizeof(int));
  // Twice the L2 size displaces all of it; the written buffer is at least the 256 MB of nvbench and do_bench.
  const auto twice_l2 = static_cast<std::size_t>(std::max<std::int64_t>(device.l2_bytes(), 1 << 20)) * 2;
  if (w.flush == L2Flush::Read) w.flush_buffer = detail::DeviceBuffer(twice_l2);
  if (w.flush == L2Flush::Write) w.flush_buffer = detail::DeviceBuffer(std::max<std::size_t>(twice_l2, 256u << 20));
}

void Workbench::prepare(CubinCache* cache) {
  impl_->device.make_current();
  impl_->prepare(cache);
}

void Workbench::Impl::prepare(CubinCache* cache) {
  if (prepared) return;
  const std::string arch = device.identity().arch();
  support = std::make_unique<detail::SupportKernels>(arch, cache);
  if (flush_buffer.get() != 0) CU_CHECK(cuMemsetD8Async, flush_buffer.get(), 0, flush_buffer.bytes(), stream);
  std::uint64_t salt = 1;
  for (auto& arg : args) {
    if (!arg.spec->is_buffer) continue;
    fill(arg, arg.spec->fill, arg.buffer.get(), salt++);
    if (arg.spec->output && arg.spec->fill.holds_data()) {
      arg.initial = detail::DeviceBuffer(arg.buffer.bytes());
      CU_CHECK(cuMemcpyDtoDAsync, arg.initial.get(), arg.buffer.get(), arg.buffer.bytes(), stream);
    }
  }

  compute_reference(cache, salt);  // the output compared with, computed once and kept per output buffer

  if (spec.library) library = std::make_shared<detail::LibraryWorkbench>(*this);
  if (spec.pipeline) {  // the host side: pinned arrays holding the inputs; the transfer-only bound is the peak
    pipeline = std::make_shared<detail::PipelineWorkbench>(*this);
    peak = pipeline->bound_gbs();
    prepared = true;
    return;
  }

  // The peak each result's metric is a fraction of (Result::peak): for bytes, this device's copy bandwidth at the
  // kernel's bytes (what the tuner's summary compares with); for FLOPs, the rate the spec names (FP32 unless it says
  // FP64 or tensor cores) of its SMs at the driver's clock. A copy that does not fit beside the kernel's buffers
  // leaves it unknown rather than the run failed.
  if (spec.metric.kind == Metric::Kind::Bytes) {
    const auto bytes = static_cast<std::int64_t>(spec.metric_amount(shape) / 2);
    try {
      peak = bytes > 0 ? copy_bandwidth(bytes) : 0.0;
    } catch (const CudaError&) {
      peak = 0.0;
    }
  } else if (spec.metric.kind == Metric::Kind::Flops) {
    const DeviceIdentity& id = device.identity();
    peak = flop_peak_gflops(spec.metric.peak, id.cc_major, id.cc_minor, id.sm_count, device.clock_khz());
  }
  prepared = true;
}

Workbench::~Workbench() = default;

bool Workbench::usable() const { return impl_->usable; }

}  // namespace cutune
