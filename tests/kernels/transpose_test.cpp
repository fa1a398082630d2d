// Host-only tests of the transpose template: its space, and NVRTC compiles of all of it for sm_90.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

TEST(Templates, TransposeIsBuiltIn) {
  const auto names = builtin_kernels();
  EXPECT_NE(std::find(names.begin(), names.end(), "transpose"), names.end());
  const KernelSpec spec = load_kernel("transpose");
  EXPECT_EQ(spec.name, "transpose");
  EXPECT_EQ(spec.kernel, "transpose");
  EXPECT_EQ(spec.shape_names, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(spec.hash.size(), 16u);
}

TEST(Templates, UnknownKernelNamesTheKnownOnes) {
  try {
    load_kernel("no_such_kernel");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown kernel 'no_such_kernel'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("transpose"), std::string::npos);
  }
}

TEST(Templates, DirectoryOverridesEmbeddedCopies) {
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_templates_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::string(CUTUNE_SOURCE_DIR) + "/templates/transpose/transpose.cu", dir / "transpose.cu");
  std::string spec_text;
  {
    std::ifstream in(std::string(CUTUNE_SOURCE_DIR) + "/templates/transpose/transpose.json");
    spec_text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto pos = spec_text.find("out-of-place transpose");
  ASSERT_NE(pos, std::string::npos);
  spec_text.replace(pos, 3, "OUT");
  std::ofstream(dir / "transpose.json") << spec_text;
  ::setenv("CUTUNE_TEMPLATES_DIR", dir.c_str(), 1);
  const KernelSpec overridden = load_kernel("transpose");
  ::unsetenv("CUTUNE_TEMPLATES_DIR");
  const KernelSpec embedded = load_kernel("transpose");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(overridden.description.substr(0, 3), "OUT");
  EXPECT_NE(overridden.hash, embedded.hash);  // a changed spec is a new kernel version
}

// 3 tiles x 3 vector widths x 6 row counts x (2 paddings with shared memory + 2 naive variants) = 432
// combinations; the constraints keep 41 tile/vector/row shapes per variant (164), and 1024 threads per block
// remove TILE=64, VEC=1, ROWS=32 in each of the 4 variants: 160.
TEST(TransposeSpace, ExactCounts) {
  const KernelSpec spec = load_kernel("transpose");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  EXPECT_EQ(space.cartesian_size(), 432u);
  EXPECT_EQ(space.size(), 160u);
  EXPECT_EQ(space.removed_by_device(), 4u);
  EXPECT_EQ(space.removed_by_constraints(), 432u - 164u);
  std::set<std::string> distinct;
  for (const auto& c : space.configs()) distinct.insert(spec.format(c));
  EXPECT_EQ(distinct.size(), 160u);
  EXPECT_TRUE(distinct.count("TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0"));  // the classic kernel
  EXPECT_FALSE(distinct.count("TILE=64,VEC=1,ROWS=32,SMEM=1,PAD=1,COALESCE=0"));  // 2048 threads
  EXPECT_FALSE(distinct.count("TILE=32,VEC=1,ROWS=8,SMEM=0,PAD=1,COALESCE=0"));   // padding without a tile
}

TEST(TransposeSpace, SmallerDeviceRemovesMore) {
  const KernelSpec spec = load_kernel("transpose");
  DeviceLimits small;
  small.max_threads_per_block = 256;
  const Space space = Space::enumerate(spec, std::nullopt, small);
  for (const auto& c : space.configs()) EXPECT_LE(spec.resolve(spec.launch, c, Shape{{64, 64}}, 132).threads(), 256);
  EXPECT_LT(space.size(), 160u);
  EXPECT_EQ(space.size() + space.removed_by_device(), 164u);
}

TEST(TransposeCompile, WholeSpaceCompilesForSm90) {
  const KernelSpec spec = load_kernel("transpose");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  CompilePool pool;
  std::vector<std::future<CompileOutput>> outputs;
  for (const auto& c : space.configs()) outputs.push_back(pool.submit([&] { return compile_config(spec, c, "sm_90"); }));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const CompileOutput out = outputs[i].get();
    ASSERT_TRUE(out.ok) << spec.format(space.configs()[i]) << "\n" << out.log;
    EXPECT_GT(out.cubin.size(), 1000u);
    EXPECT_EQ(out.lowered_name, "transpose");
    // Some NVRTC builds return ptxas's resource report in the log, some do not; when it is there it is read.
    if (out.log.find("Used ") != std::string::npos) EXPECT_GT(out.registers, 0) << out.log;
  }
}

TEST(TransposeCompile, ReferenceCompiles) {
  const KernelSpec spec = load_kernel("transpose");
  const CompileOutput out = compile_reference(spec, "sm_90");
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_name, "transpose_reference");
}

TEST(TransposeCompile, BrokenSourceIsAResultWithTheLog) {
  KernelSpec spec = load_kernel("transpose");
  spec.source += "\n__global__ void broken() { undeclared_name = 1; }\n";
  const CompileOutput out = compile_config(spec, spec.default_config(), "sm_90");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("undeclared_name"), std::string::npos) << out.log;
  EXPECT_TRUE(out.cubin.empty());
}

}  // namespace
}  // namespace cutune
