// Workbench::run_once: a configuration launched once on the workbench's data and every buffer read back, as a
// caller that checks outputs itself needs them (cutune.kernel_tuner's run_kernel and verify functions).
#include "driver/cluster_launch.hpp"
#include "cutune/error.hpp"
#include "workbench.hpp"

namespace cutune {

std::vector<std::vector<unsigned char>> Workbench::run_once(const Config& config, const CompileOutput& compiled,
                                                           const std::vector<bool>& read_back) {
  Impl& w = *impl_;
  const std::string what = w.spec.name + " at " + w.spec.format(config);
  if (!compiled.ok) throw InputError(what + " does not compile: " + compiled.log);
  if (w.spec.pipeline) throw InputError(what + ": a spec with a host pipeline is not run once");
  if (!w.usable) throw CudaError(what + ": an earlier fault left the CUDA context unusable");
  w.device.make_current();
  w.prepare(nullptr);
  detail::Module module;
  detail::check(module.load(compiled.cubin), "cuModuleLoadData");
  CUfunction f = nullptr;
  detail::check(module.function(compiled.lowered_name, &f), "cuModuleGetFunction");
  const Launch launch = w.spec.resolve(w.spec.launch, config, w.shape, w.device.limits().sm_count);
  if (launch.shared_memory > 0) {
    detail::check(detail::driver().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                      static_cast<int>(launch.shared_memory)),
                  "cuFuncSetAttribute(max dynamic shared memory)");
  }
  std::optional<std::string> unlaunchable = detail::prepare_cluster_launch(f, launch);
  if (!unlaunchable) unlaunchable = w.encode_tensor_maps(config);
  if (!unlaunchable) unlaunchable = detail::copy_constants(module, w.args, w.stream);
  if (unlaunchable) throw CudaError(what + ": " + *unlaunchable);
  w.reset_outputs();
  std::vector<void*> params = w.parameters(config);
  detail::check(w.launch(f, launch, params), "cuLaunchKernel");
  if (CUresult e = detail::driver().cuStreamSynchronize(w.stream); e != CUDA_SUCCESS) {
    w.usable = !detail::is_sticky(e);
    throw CudaError(what + ": " + detail::describe(e, "kernel execution"));
  }
  std::vector<std::vector<unsigned char>> contents;
  for (const auto& arg : w.args) {
    if (!arg.spec->is_parameter()) continue;  // a __constant__ array: not among the kernel's parameters
    const std::size_t index = contents.size();
    std::vector<unsigned char>& bytes = contents.emplace_back();
    if (!arg.spec->is_buffer || (index < read_back.size() && !read_back[index])) continue;
    bytes.resize(arg.buffer.bytes());
    CU_CHECK(cuMemcpyDtoH, bytes.data(), arg.buffer.get(), bytes.size());
  }
  return contents;
}

}  // namespace cutune
