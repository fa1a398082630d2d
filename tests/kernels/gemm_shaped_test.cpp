// Host tests of the GEMM templates compiled for their shape (SHAPED=1): NVRTC builds the specialized configurations of
// every instruction path (mma.sync, wgmma, swapped, TF32, FP8) at an odd shape without spills or serialized wgmmas, into
// binaries of their own (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

// A configuration's text with SHAPED set.
Config shaped(const KernelSpec& spec, const Config& c, int value) {
  Config out = c;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    if (spec.parameters[p].name == "SHAPED") out.values[p] = Value(value);
  }
  return out;
}

// The first start entry of each kind the spec lists (PATH 1 or FP8's, and swapped where there is one), and the default
// configuration (PATH 0 for the 16-bit and TF32 kernels).
std::vector<Config> examples(const KernelSpec& spec) {
  std::vector<Config> out{spec.default_config(), spec.start.front()};
  for (const Config& c : spec.start) {
    if (spec.format(c).find("SWAP=1") != std::string::npos) {
      out.push_back(c);
      break;
    }
  }
  return out;
}

TEST(GemmShapedCompile, SpecializedConfigurationsCompileIntoBinariesOfTheirOwn) {
  struct Job {
    const KernelSpec* spec;
    Config config;
    std::future<CompileOutput> plain, specialized;
  };
  std::vector<KernelSpec> specs;
  for (const char* name : {"gemm_bf16", "gemm_tf32", "gemm_fp8"}) specs.push_back(load_kernel(name));
  const Shape odd{{1000, 1000, 1024}};  // K a multiple of 16 for FP8; M and N leave partial tiles
  CompilePool pool;
  std::vector<Job> jobs;
  for (const KernelSpec& spec : specs) {
    ASSERT_TRUE(std::any_of(spec.parameters.begin(), spec.parameters.end(),
                            [](const Parameter& p) { return p.name == "SHAPED"; }))
        << spec.name;
    for (const Config& c : examples(spec)) {
      const Config plain = shaped(spec, c, 0), special = shaped(spec, c, 1);
      EXPECT_FALSE(spec.shape_specialized(plain));
      EXPECT_TRUE(spec.shape_specialized(special));
      jobs.push_back({&spec, special, pool.submit([&spec, plain] { return compile_config(spec, plain, "sm_90"); }),
                      pool.submit([&spec, special, &odd] { return compile_config(spec, special, "sm_90", &odd); })});
    }
  }
  for (auto& job : jobs) {
    const std::string text = job.spec->name + " " + job.spec->format(job.config);
    const CompileOutput plain = job.plain.get(), specialized = job.specialized.get();
    ASSERT_TRUE(plain.ok) << text << "\n" << plain.log;
    ASSERT_TRUE(specialized.ok) << text << "\n" << specialized.log;
    EXPECT_EQ(specialized.lowered_name, plain.lowered_name);
    EXPECT_NE(specialized.cubin, plain.cubin) << text;
    EXPECT_EQ(specialized.spill_bytes, 0) << text;
    EXPECT_EQ(specialized.log.find("wgmma"), std::string::npos) << text << "\n" << specialized.log;
    std::printf("%-60.60s registers %3d -> %3d, cubin %6zu -> %6zu bytes\n", text.c_str(), plain.registers,
                specialized.registers, plain.cubin.size(), specialized.cubin.size());
  }
}

}  // namespace
}  // namespace cutune
