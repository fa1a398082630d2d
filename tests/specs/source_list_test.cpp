// Tests of a spec's "source" as a list of files: the joined text, its name and version, and the errors of bad lists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/spec.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

using Json = nlohmann::ordered_json;

// A kernel split like the tensor-core GEMM: a helper in the first file, the kernel in the second.
Json two_file_spec() {
  return Json::parse(R"json({
    "name": "split", "source": ["common.cu", "kernel.cu"], "kernel": "scale", "shape": ["N"],
    "parameters": {"BLOCK": [64, 128]},
    "block": ["BLOCK"], "grid": ["ceil_div(N, BLOCK)"],
    "arguments": [
      {"name": "out", "type": "float*", "size": "N", "output": true},
      {"name": "in", "type": "const float*", "size": "N", "fill": "random"},
      {"name": "n", "type": "int", "value": "N"}
    ],
    "reference": {"configuration": {"BLOCK": 64}},
    "metric": {"bytes": "8 * N"}
  })json");
}

constexpr const char* kCommon = "__device__ float twice(float x) { return 2.0f * x; }";  // no final newline
constexpr const char* kKernel =
    "extern \"C\" __global__ void scale(float* out, const float* in, int n) {\n"
    "  const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
    "  if (i < n) out[i] = twice(in[i]);\n"
    "}\n";

class SourceList : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("cutune_source_list_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  KernelSpec load(const Json& spec) {
    write("split.json", spec.dump());
    return KernelSpec::load(dir_ / "split.json");
  }
  std::string error(const Json& spec) {
    try {
      load(spec);
    } catch (const SpecError& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::filesystem::path dir_;
};

TEST_F(SourceList, FilesAreJoinedInOrderAndCompileAsOne) {
  write("common.cu", kCommon);
  write("kernel.cu", kKernel);
  const KernelSpec spec = load(two_file_spec());
  EXPECT_EQ(spec.source_name, "common.cu+kernel.cu");
  // Each file after a #line marker naming it, so that compiler messages point into the right file.
  EXPECT_EQ(spec.source, std::string("#line 1 \"common.cu\"\n") + kCommon + "\n#line 1 \"kernel.cu\"\n" + kKernel);
  const CompileOutput out = compile_config(spec, spec.default_config(), "sm_80");
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_name, "scale");
}

TEST_F(SourceList, EveryFileIsPartOfTheVersion) {
  write("common.cu", kCommon);
  write("kernel.cu", kKernel);
  const std::string before = load(two_file_spec()).hash;
  write("common.cu", std::string(kCommon) + " // changed");
  EXPECT_NE(load(two_file_spec()).hash, before);
  write("common.cu", kCommon);
  EXPECT_EQ(load(two_file_spec()).hash, before);
}

TEST_F(SourceList, CompilerMessagesNameTheFile) {
  write("common.cu", kCommon);
  write("kernel.cu", std::string(kKernel) + "this is not CUDA;\n");
  const KernelSpec spec = load(two_file_spec());
  const CompileOutput out = compile_config(spec, spec.default_config(), "sm_80");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("kernel.cu(5)"), std::string::npos) << out.log;
}

TEST_F(SourceList, BadListsAreOneClearError) {
  write("common.cu", kCommon);
  write("kernel.cu", kKernel);
  auto with = [&](const Json& source) {
    Json j = two_file_spec();
    j["source"] = source;
    return error(j);
  };
  EXPECT_EQ(with(Json::array()), "spec split: source: must be a file name or a non-empty list of file names");
  EXPECT_EQ(with(3), "spec split: source: must be a file name or a non-empty list of file names");
  EXPECT_EQ(with(""), "spec split: source: must not be empty");
  EXPECT_EQ(with({"common.cu", 7}),
            "spec split: source: entry 2 is not a file name (must be a file name or a non-empty list of file names)");
  EXPECT_EQ(with({"common.cu", ""}),
            "spec split: source: entry 2 is not a file name (must be a file name or a non-empty list of file names)");
  EXPECT_EQ(with({"kernel.cu", "common.cu", "kernel.cu"}), "spec split: source: entry 3 names 'kernel.cu' a second time");
  EXPECT_EQ(with({"common.cu", "absent.cu"}), "cannot read kernel source '" + (dir_ / "absent.cu").string() + "'");
  Json j = two_file_spec();
  j.erase("source");
  EXPECT_EQ(error(j), "spec split: source: missing");
}

// A file name not beside the spec is read from the one folder beside the spec's that holds it, under the name the spec
// writes (the template families share templates/sm90/ so).
TEST_F(SourceList, NameNotBesideTheSpecIsFoundInAFolderBesideIt) {
  std::filesystem::create_directories(dir_ / "family");
  std::filesystem::create_directories(dir_ / "shared");
  std::ofstream(dir_ / "shared" / "common.cu") << kCommon;
  std::ofstream(dir_ / "family" / "kernel.cu") << kKernel;
  std::ofstream(dir_ / "family" / "split.json") << two_file_spec().dump();
  const KernelSpec spec = KernelSpec::load(dir_ / "family" / "split.json");
  EXPECT_EQ(spec.source_name, "common.cu+kernel.cu");
  EXPECT_EQ(spec.source.find(std::string("#line 1 \"common.cu\"\n") + kCommon), 0u);

  write("common.cu", kCommon);
  write("kernel.cu", kKernel);
  EXPECT_EQ(load(two_file_spec()).hash, spec.hash);  // the folder that keeps a file is not part of the version

  std::filesystem::create_directories(dir_ / "other");
  std::ofstream(dir_ / "other" / "common.cu") << kCommon;
  try {
    KernelSpec::load(dir_ / "family" / "split.json");
    FAIL() << "a name in two folders beside the spec's loaded";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel source 'common.cu' is in two folders beside the spec's"),
              std::string::npos)
        << e.what();
  }
}

// The templates read from the source tree (as CUTUNE_TEMPLATES_DIR reads them) are the embedded ones.
TEST(SourceListBuiltIn, SourceTreeSpecsAreTheEmbeddedOnes) {
  const std::filesystem::path templates = std::filesystem::path(CUTUNE_SOURCE_DIR) / "templates";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(templates)) {
    // Operations (NAME.op.json) are not kernels: tests/specs/library_spec_test.cpp reads them.
    if (entry.path().extension() != ".json" || entry.path().string().ends_with(".op.json")) continue;
    const KernelSpec from_file = KernelSpec::load(entry.path());
    const KernelSpec built_in = load_kernel(entry.path().stem().string());
    EXPECT_EQ(from_file.hash, built_in.hash) << entry.path();
    EXPECT_EQ(from_file.source_name, built_in.source_name) << entry.path();
  }
}

// The built-in tensor-core GEMMs are such a list, embedded like any template.
TEST(SourceListBuiltIn, TensorCoreGemmsJoinTheirFiles) {
  for (const char* name : {"gemm_bf16", "gemm_f16"}) {
    const KernelSpec spec = load_kernel(name);
    EXPECT_EQ(spec.source_name,
              "gemm_tc_shared.cu+gemm_tc.cu+gemm_sm90_ptx.cu+gemm_sm90.cu+gemm_sm90_streamk.cu+gemm_sm90_store.cu+"
              "gemm_sm90_transposed.cu+gemm_wgmma_ops.cu+gemm_wgmma.cu+gemm_wgmma_swap.cu")
        << name;
    EXPECT_EQ(spec.source.find("#line 1 \"gemm_tc_shared.cu\"\n"), 0u) << name;
    EXPECT_NE(spec.source.find("#line 1 \"gemm_wgmma.cu\"\n"), std::string::npos) << name;
  }
  EXPECT_EQ(load_kernel("gemm_tf32").source_name,
            "gemm_tc_shared.cu+gemm_tc.cu+gemm_sm90_ptx.cu+gemm_sm90.cu+gemm_sm90_streamk.cu+"
            "gemm_sm90_transposed.cu+gemm_wgmma_tf32_ops.cu+gemm_wgmma_tf32.cu");
}

}  // namespace
}  // namespace cutune
