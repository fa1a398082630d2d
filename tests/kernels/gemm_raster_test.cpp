// Host tests of the GEMM templates' tile order (RASTER): the serpentine order is there only where it can matter (the
// wgmma kernels' untransposed tiles, at least 256 tiles), it pairs with every such configuration of the grouped order,
// and NVRTC builds it for every kernel family (16-bit, TF32, FP8; shape-specialized too) into binaries of its own
// without spills or serialized wgmmas (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

std::int64_t value(const KernelSpec& spec, const Config& c, const std::string& name) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) return c.values[p].as_int();
  return -1;  // the kernel has no such parameter (TF32's SWAP, FP8's PATH)
}

Config with(const KernelSpec& spec, const Config& c, const std::string& name, std::int64_t v) {
  Config out = c;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) out.values[p] = Value(v);
  return out;
}

// Every RASTER=1 configuration is a wgmma one with untransposed tiles and at least 256 of them, and is the RASTER=0
// configuration with the order changed: the order doubles exactly those configurations.
TEST(GemmRasterSpace, SerpentineOnlyWhereTheOrderMatters) {
  for (const char* name : {"gemm_bf16", "gemm_f16", "gemm_tf32", "gemm_fp8", "gemm_fp8_blockscaled"}) {
    const KernelSpec spec = load_kernel(name);
    for (const char* text : {"4096x4096x4096", "8192x8192x1024", "2048x2048x2048", "1000x1000x1024", "16x4096x4096"}) {
      const Shape shape = spec.parse_shape(text);
      const Space space = Space::enumerate(spec, shape, DeviceLimits{});
      std::set<std::string> grouped;
      std::vector<Config> serpentine;
      for (const Config& c : space.configs()) {
        if (value(spec, c, "RASTER") == 1) {
          serpentine.push_back(c);
        } else {
          grouped.insert(spec.format(c));
        }
      }
      for (const Config& c : serpentine) {
        EXPECT_NE(value(spec, c, "PATH"), 0) << name << " " << spec.format(c);
        EXPECT_NE(value(spec, c, "SWAP"), 1) << name << " " << spec.format(c);
        const std::int64_t tiles = (shape.dims[0] + value(spec, c, "BM") - 1) / value(spec, c, "BM") *
                                   ((shape.dims[1] + value(spec, c, "BN") - 1) / value(spec, c, "BN"));
        EXPECT_GE(tiles, 256) << name << " " << text << " " << spec.format(c);
        EXPECT_EQ(grouped.count(spec.format(with(spec, c, "RASTER", 0))), 1u) << name << " " << spec.format(c);
      }
      const bool many_tiles = std::string(text) == "4096x4096x4096" || std::string(text) == "8192x8192x1024";
      if (many_tiles) EXPECT_GT(serpentine.size(), 100u) << name << " " << text;
      if (std::string(text) == "16x4096x4096") EXPECT_TRUE(serpentine.empty()) << name;
    }
  }
}

// The start entries keep the grouped order (RASTER=0), so each is valid wherever the grouped order is.
TEST(GemmRasterSpace, StartEntriesKeepTheGroupedOrder) {
  for (const char* name : {"gemm_bf16", "gemm_f16", "gemm_tf32", "gemm_fp8", "gemm_fp8_f32", "gemm_fp8_blockscaled"}) {
    const KernelSpec spec = load_kernel(name);
    ASSERT_FALSE(spec.start.empty()) << name;
    for (const Config& c : spec.start) EXPECT_EQ(value(spec, c, "RASTER"), 0) << name << " " << spec.format(c);
  }
}

// The first wgmma start entry of each family with RASTER 1, generic and specialized for 4096^3: each compiles, into a
// binary other than the grouped order's, without spills or serialized wgmmas.
TEST(GemmRasterCompile, SerpentineCompilesForEveryFamily) {
  struct Job {
    std::string text;
    std::future<CompileOutput> grouped, serpentine;
  };
  std::vector<KernelSpec> specs;
  for (const char* name : {"gemm_bf16", "gemm_tf32", "gemm_fp8"}) specs.push_back(load_kernel(name));
  const Shape cube{{4096, 4096, 4096}};
  CompilePool pool;
  std::vector<Job> jobs;
  for (const KernelSpec& spec : specs) {
    const auto first = std::find_if(spec.start.begin(), spec.start.end(), [&](const Config& c) {
      return value(spec, c, "PATH") != 0 && value(spec, c, "SWAP") != 1;
    });
    ASSERT_NE(first, spec.start.end()) << spec.name;
    for (const int shaped : {0, 1}) {
      const Config grouped = with(spec, *first, "SHAPED", shaped), serpentine = with(spec, grouped, "RASTER", 1);
      const Shape* shape = shaped ? &cube : nullptr;
      jobs.push_back({spec.name + " " + spec.format(serpentine),
                      pool.submit([&spec, grouped, shape] { return compile_config(spec, grouped, "sm_90", shape); }),
                      pool.submit([&spec, serpentine, shape] { return compile_config(spec, serpentine, "sm_90", shape); })});
    }
  }
  for (auto& job : jobs) {
    const CompileOutput grouped = job.grouped.get(), serpentine = job.serpentine.get();
    ASSERT_TRUE(grouped.ok) << job.text << "\n" << grouped.log;
    ASSERT_TRUE(serpentine.ok) << job.text << "\n" << serpentine.log;
    EXPECT_NE(serpentine.cubin, grouped.cubin) << job.text;
    EXPECT_EQ(serpentine.spill_bytes, 0) << job.text;
    EXPECT_EQ(serpentine.log.find("wgmma"), std::string::npos) << job.text << "\n" << serpentine.log;
    std::printf("%-60.60s registers %3d -> %3d\n", job.text.c_str(), grouped.registers, serpentine.registers);
  }
}

}  // namespace
}  // namespace cutune
