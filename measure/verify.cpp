// Verification as the user asked for it: the reference output (of the reference, or of the default configuration),
// each output's tolerance and region, the comparison, and a message that shows a few of the elements that differ.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "driver/cluster_launch.hpp"
#include "cutune/error.hpp"
#include "workbench.hpp"

namespace cutune {
namespace detail {
namespace {

// The support kernels' Region (support.cu): the whole buffer unless the spec gives a region.
struct SupportRegion {
  std::uint64_t extent[3];
  std::uint64_t begin[3];
  std::uint64_t end[3];
};

SupportRegion support_region(const std::optional<Region>& region, std::uint64_t count) {
  SupportRegion out{{count, 1, 1}, {0, 0, 0}, {count, 1, 1}};
  if (!region) return out;
  for (std::size_t d = 0; d < 3; ++d) {
    out.extent[d] = static_cast<std::uint64_t>(region->extents[d]);
    out.begin[d] = static_cast<std::uint64_t>(region->begin[d]);
    out.end[d] = static_cast<std::uint64_t>(region->end[d]);
  }
  return out;
}

// Elements the single-threaded look for examples reads at most past the first mismatch.
constexpr std::uint64_t kSampleScan = 1u << 20;

}  // namespace

ReferenceChoice reference_choice(const KernelSpec& spec, VerifyMode mode, const Config* checked) {
  std::optional<Config> config;
  std::string what = "the configuration ";
  if (mode == VerifyMode::Default) {
    config = spec.default_config();
    what = "the default configuration ";
  } else if (spec.reference_config) {
    config = *spec.reference_config;
  } else {
    return {std::nullopt, spec.reference_kernel};
  }
  if (checked != nullptr) {
    const Config followed = spec.following(*config, *checked);
    return {followed, what + spec.format(followed)};
  }
  std::string name = what + spec.format(*config);
  if (!spec.reference_follow.empty()) {  // a configuration is checked against it at its own values of these
    name += " with each configuration's";
    for (std::size_t k = 0; k < spec.reference_follow.size(); ++k) {
      name += (k == 0 ? " " : ", ") + spec.parameters[spec.reference_follow[k]].name;
    }
  }
  return {config, name};
}

CompileOutput compile_reference_for(CubinCache* cache, const KernelSpec& spec, VerifyMode mode,
                                    const std::string& arch, const Shape& shape, const Config* checked) {
  const ReferenceChoice choice = reference_choice(spec, mode, checked);
  if (choice.config) return compile_config_cached(cache, spec, *choice.config, arch, &shape);
  return compile_reference_cached(cache, spec, arch, &shape);
}

std::string describe_disagreement(const std::string& output, const Disagreement& d, double max_error,
                                  const std::vector<MismatchSample>& samples, const std::optional<Region>& region) {
  std::ostringstream msg;
  msg << d.count << " of " << d.compared << (region ? " compared" : "") << " elements of " << output
      << " differ from the reference (first at index " << d.first;
  if (region && region->rank > 1) msg << " " << region->coordinates(d.first);
  msg << ", largest error " << max_error << ")";
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const MismatchSample& s = samples[i];
    msg << (i == 0 ? ": " : ", ") << output << "[" << s.index << "] = " << s.value << " (reference " << s.reference
        << ")";
  }
  if (!samples.empty() && samples.size() < d.count) msg << ", ...";
  return msg.str();
}

}  // namespace detail

void Workbench::Impl::plan_verification() {
  check_verification(spec, shape, verify);
  for (auto& arg : args) {
    if (!arg.spec->is_buffer || !arg.spec->output) continue;
    arg.tolerance = spec.tolerance_at(shape, arg.spec->name);
    if (options.atol) arg.tolerance.atol = *options.atol;
    if (options.rtol) arg.tolerance.rtol = *options.rtol;
    if (!(arg.tolerance.atol >= 0.0) || !(arg.tolerance.rtol >= 0.0)) {
      throw InputError("the tolerance of " + arg.spec->name + " must be >= 0 (atol " +
                       std::to_string(arg.tolerance.atol) + ", rtol " + std::to_string(arg.tolerance.rtol) + ")");
    }
    arg.region = spec.region_at(shape, arg.spec->name, static_cast<std::int64_t>(arg.count));
  }
}

void Workbench::Impl::compute_reference(CubinCache* cache, std::uint64_t salt) {
  if (verify == VerifyMode::None) return;
  references.cache = cache;
  references.salt = salt;
  const detail::ReferenceChoice choice = detail::reference_choice(spec, verify);
  run_reference(choice, detail::compile_reference_for(cache, spec, verify, device.identity().arch(), shape));
  if (choice.config) references.current = spec.format(*choice.config);
}

void Workbench::Impl::run_reference(const detail::ReferenceChoice& choice, const CompileOutput& ref) {
  const Config ref_config = choice.config ? *choice.config : spec.default_config();
  if (!ref.ok) throw CudaError("the reference " + choice.name + " of " + spec.name + " does not compile:\n" + ref.log);
  detail::Module module;
  detail::check(module.load(ref.cubin), "cuModuleLoadData(reference)");
  CUfunction f = nullptr;
  detail::check(module.function(ref.lowered_name, &f), "cuModuleGetFunction(reference)");
  const Launch l = spec.resolve(choice.config ? spec.launch : spec.reference_launch, ref_config, shape,
                                device.limits().sm_count);
  if (l.shared_memory > 0) {  // opt in: static shared memory may push the total past 48 KiB
    CU_CHECK(cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared_memory));
  }
  if (auto why = detail::prepare_cluster_launch(f, l)) throw CudaError("the reference of " + spec.name + ": " + *why);
  if (auto why = encode_tensor_maps(ref_config)) throw CudaError("the reference of " + spec.name + ": " + *why);
  if (auto why = detail::copy_constants(module, args, stream)) {
    throw CudaError("the reference of " + spec.name + ": " + *why);
  }
  reset_outputs();
  std::vector<void*> params = parameters(ref_config);
  detail::check(launch(f, l, params), "cuLaunchKernel(reference)");
  CU_CHECK(cuStreamSynchronize, stream);
  std::uint64_t salt = references.salt;
  for (auto& arg : args) {
    if (!arg.spec->is_buffer || !arg.spec->output) continue;
    if (arg.spec->expected && verify == VerifyMode::Reference) {  // what the spec says the output must hold
      fill(arg, *arg.spec->expected, arg.reference.get(), salt++);
    } else {
      CU_CHECK(cuMemcpyDtoDAsync, arg.reference.get(), arg.buffer.get(), arg.buffer.bytes(), stream);
    }
  }
  CU_CHECK(cuStreamSynchronize, stream);
}

bool Workbench::Impl::verify_outputs(Result& r) {
  if (verify == VerifyMode::None) {
    r.status = Status::Unverified;
    return true;
  }
  for (auto& arg : args) {
    if (!arg.spec->is_buffer || !arg.spec->output) continue;
    const auto t = static_cast<std::size_t>(arg.spec->type);
    CU_CHECK(cuMemsetD8Async, stats.get(), 0, 2 * sizeof(std::uint64_t), stream);
    CU_CHECK(cuMemsetD8Async, stats.get() + sizeof(std::uint64_t), 0xff, sizeof(std::uint64_t), stream);
    CU_CHECK(cuMemsetD8Async, stats.get() + 2 * sizeof(std::uint64_t), 0, sizeof(std::uint64_t), stream);
    CUdeviceptr out = arg.buffer.get(), ref = arg.reference.get(), counts = stats.get();
    std::uint64_t n = arg.count;
    double atol = arg.tolerance.atol, rtol = arg.tolerance.rtol;
    detail::SupportRegion region = detail::support_region(arg.region, n);
    void* cmp[] = {&out, &ref, &n, &atol, &rtol, &counts, &region};
    detail::check(launch_support(support->compare[t], n, cmp), "compare");
    std::uint64_t host[3] = {};
    CU_CHECK(cuStreamSynchronize, stream);
    CU_CHECK(cuMemcpyDtoH, host, stats.get(), sizeof host);
    double max_error = 0.0;
    std::memcpy(&max_error, &host[2], sizeof max_error);
    r.max_error = std::max(r.max_error, max_error);
    if (host[0] == 0) continue;

    // A few of the elements that differ, from the first on, with the reference's values: where and how they differ.
    Disagreement d{arg.spec->name, host[0], host[1],
                   arg.region ? static_cast<std::uint64_t>(arg.region->count()) : arg.count};
    CUdeviceptr found = stats.get() + 3 * sizeof(std::uint64_t);
    std::uint64_t from = d.first, limit = detail::kSampleScan, k = detail::kMismatchSamples;
    void* sample_params[] = {&out, &ref, &n, &atol, &rtol, &region, &from, &limit, &k, &found};
    detail::check(detail::driver().cuLaunchKernel(support->mismatches[t], 1, 1, 1, 1, 1, 1, 0, stream, sample_params,
                                                  nullptr),
                  "mismatches");
    std::array<std::uint64_t, 1 + 3 * detail::kMismatchSamples> words{};
    CU_CHECK(cuStreamSynchronize, stream);
    CU_CHECK(cuMemcpyDtoH, words.data(), found, sizeof words);
    std::vector<detail::MismatchSample> samples;
    for (std::size_t i = 0; i < std::min<std::uint64_t>(words[0], k); ++i) {
      detail::MismatchSample s{words[1 + i], 0.0, 0.0};
      std::memcpy(&s.value, &words[1 + k + i], sizeof s.value);
      std::memcpy(&s.reference, &words[1 + 2 * k + i], sizeof s.reference);
      samples.push_back(s);
    }
    r.status = Status::WrongResult;
    r.message = detail::describe_disagreement(arg.spec->name, d, max_error, samples, arg.region);
    r.disagreement = std::move(d);
    return false;
  }
  return true;
}

}  // namespace cutune
