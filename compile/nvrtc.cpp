// NVRTC compiles to a cubin for one architecture, with the log and the ptxas resource report kept.
#include <nvrtc.h>

#include <chrono>
#include <memory>
#include <regex>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/target.hpp"
#include "device_headers.hpp"
#include "nvrtc.hpp"

namespace cutune {
namespace {

void check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS) throw CudaError(std::string(call) + ": " + nvrtcGetErrorString(result));
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

std::string program_log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);
  return log;
}

// ptxas reports every entry function of the source; take the report of the kernel compiled for (its lowered name),
// or the only one when the name does not appear.
void read_resources(CompileOutput& out) {
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex spills(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::string_view log = out.log;
  const std::string entry = "entry function '" + out.lowered_name + "'";
  if (const auto at = log.find(entry); at != std::string_view::npos) {
    log = log.substr(at);
    if (const auto next = log.find("entry function '", entry.size()); next != std::string_view::npos) {
      log = log.substr(0, next);
    }
  }
  const std::string section(log);
  std::smatch m;
  if (std::regex_search(section, m, registers)) out.registers = std::stoi(m[1]);
  if (std::regex_search(section, m, spills)) out.spill_bytes = std::stoi(m[1]) + std::stoi(m[2]);
}

}  // namespace

int nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return major * 1000 + minor * 10;
}

namespace detail {

NvrtcOutput nvrtc_compile_here(const NvrtcRequest& request) {
  NvrtcOutput out;
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  // The C and C++ standard headers come with every program: NVRTC ships none (device_headers.hpp).
  const DeviceHeaders& headers = device_headers();
  std::vector<const char*> header_names, header_texts;
  for (std::size_t i = 0; i < headers.names.size(); ++i) {
    header_names.push_back(headers.names[i].c_str());
    header_texts.push_back(headers.texts[i].c_str());
  }
  check(nvrtcCreateProgram(program.get(), request.source.c_str(), request.source_name.c_str(),
                           static_cast<int>(header_names.size()), header_texts.data(), header_names.data()),
        "nvrtcCreateProgram");
  for (const auto& name : request.names) {
    check(nvrtcAddNameExpression(*program, name.c_str()), "nvrtcAddNameExpression");
  }

  std::vector<std::string> all = {"--gpu-architecture=" + request.arch, "-std=c++17", "--ptxas-options=-v",
                                  "-DCUTUNE=1"};
  all.insert(all.end(), headers.include_options.begin(), headers.include_options.end());
  all.insert(all.end(), request.options.begin(), request.options.end());
  std::vector<const char*> argv;
  for (const auto& o : all) argv.push_back(o.c_str());

  const nvrtcResult result = nvrtcCompileProgram(*program, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(*program);
  if (result != NVRTC_SUCCESS) {
    if (out.log.empty()) out.log = nvrtcGetErrorString(result);
    return out;
  }
  for (const auto& name : request.names) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(*program, name.c_str(), &lowered), "nvrtcGetLoweredName");
    out.lowered_names.emplace_back(lowered);
  }
  size_t size = 0;
  check(nvrtcGetCUBINSize(*program, &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  check(nvrtcGetCUBIN(*program, out.cubin.data()), "nvrtcGetCUBIN");
  out.ok = true;
  return out;
}

namespace {

thread_local const NvrtcRunnerFactory* t_runners = nullptr;
thread_local std::unique_ptr<NvrtcRunner> t_runner;

}  // namespace

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& source_name,
                          const std::vector<std::string>& names, const std::vector<std::string>& options,
                          const std::string& arch) {
  const NvrtcRequest request{source, source_name, names, options, arch};
  if (t_runners == nullptr || !*t_runners) return nvrtc_compile_here(request);
  if (!t_runner) t_runner = (*t_runners)();
  return t_runner->run(request);
}

RunnersForThisThread::RunnersForThisThread(const NvrtcRunnerFactory* factory) : previous_(t_runners) {
  t_runners = factory;
}

RunnersForThisThread::~RunnersForThisThread() {
  t_runner.reset();
  t_runners = previous_;
}

}  // namespace detail

CompileOutput compile(const KernelSpec& spec, const std::string& kernel, const std::vector<std::string>& options,
                      const std::string& arch) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> all = spec.compile_options;
  all.insert(all.end(), options.begin(), options.end());
  detail::NvrtcOutput nvrtc = detail::nvrtc_compile(spec.source, spec.source_name, {kernel}, all, arch);
  CompileOutput out;
  out.ok = nvrtc.ok;
  out.interrupted = nvrtc.interrupted;
  out.log = std::move(nvrtc.log);
  out.cubin = std::move(nvrtc.cubin);
  if (out.ok) {
    out.lowered_name = nvrtc.lowered_names.front();
    read_resources(out);
  }
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

CompileOutput library_call(const KernelSpec& spec) {
  CompileOutput out;
  out.ok = true;
  out.log = spec.name + " runs as a library call: nothing to compile";
  return out;
}

CompileOutput compile_config(const KernelSpec& spec, const Config& config, const std::string& arch, const Shape* shape) {
  if (spec.library) return library_call(spec);
  CompileOutput failed;
  const auto options = config_options_or(spec, config, shape, failed);
  if (!options) return failed;
  return compile(spec, spec.kernel, *options, compile_arch(spec, config, arch));
}

std::vector<std::string> reference_defines(const KernelSpec& spec, const Shape* shape) {
  std::vector<std::string> out = spec.defines(spec.default_config(), shape);
  out.emplace_back("-DCUTUNE_REFERENCE=1");
  return out;
}

CompileOutput compile_reference(const KernelSpec& spec, const std::string& arch, const Shape* shape) {
  if (spec.reference_config) return compile_config(spec, *spec.reference_config, arch, shape);
  return compile(spec, spec.reference_kernel, reference_defines(spec, shape), arch);
}

}  // namespace cutune
