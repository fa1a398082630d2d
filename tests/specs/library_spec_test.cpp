// Tests of library families (a spec's "library" section) and of operation specs: what they read, what they refuse with
// a message naming the field, and cuBLASLt's missing-library message.
#include "cutune/library.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/operation.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "driver/cublaslt.hpp"

namespace cutune {
namespace {

using Json = nlohmann::ordered_json;

// The BF16 family's spec document, to be edited.
Json bf16_family() { return Json::parse(load_kernel("gemm_bf16_cublaslt").json); }

KernelSpec from(const Json& j) { return KernelSpec::from_json(j.dump(), load_kernel("gemm_bf16_cublaslt").source, "s.cu"); }

// `read` must throw a SpecError whose message contains `part`.
template <typename Read>
void expect_error(const Read& read, const std::string& part) {
  try {
    read();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

void expect_spec_error(const Json& j, const std::string& part) {
  expect_error([&] { from(j); }, part);
}

TEST(LibrarySpec, BuiltInFamiliesReadTheirArgumentsByName) {
  for (const char* name : {"gemm_bf16_cublaslt", "gemm_f16_cublaslt", "gemm_tf32_cublaslt", "gemm_fp8_cublaslt",
                           "gemm_fp8_e5m2_cublaslt", "gemm_fp8_f16_cublaslt"}) {
    const KernelSpec spec = load_kernel(name);
    ASSERT_TRUE(spec.library) << name;
    EXPECT_TRUE(spec.kernel.empty());
    const LibrarySpec& lib = *spec.library;
    EXPECT_EQ(spec.arguments[lib.a].name, "A");
    EXPECT_EQ(spec.arguments[lib.b].name, "B");
    EXPECT_EQ(spec.arguments[lib.c].name, "C");
    EXPECT_EQ(spec.arguments[lib.alpha].name, "alpha");
    EXPECT_EQ(spec.arguments[lib.beta].name, "beta");
    ASSERT_TRUE(lib.workspace);
    EXPECT_EQ(spec.arguments[*lib.workspace].name, "workspace");
    EXPECT_EQ(spec.parameters[lib.rank_parameter].name, "RANK");
    ASSERT_TRUE(lib.reduction_parameter);
    EXPECT_EQ(spec.parameters[*lib.reduction_parameter].name, "REDUCTION");
    EXPECT_EQ(lib.tf32, std::string(name) == "gemm_tf32_cublaslt");
    const bool fp8 = std::string(name).rfind("gemm_fp8", 0) == 0;
    EXPECT_EQ(lib.b_transposed, fp8);
    EXPECT_EQ(lib.scale_a.has_value(), fp8);
    EXPECT_EQ(lib.bias.has_value(), fp8);
  }
}

// The space is the ranks, with and without the reductions in the output type, whatever the shape (a rank past the heuristic's answers is found out when it runs), and a
// configuration compiles to nothing.
TEST(LibrarySpec, SpaceIsTheRanksAndNothingCompiles) {
  const KernelSpec spec = load_kernel("gemm_bf16_cublaslt");
  for (const char* shape : {"1x1x1", "127x255x67", "8192x8192x8192"}) {
    const Space space = Space::enumerate(spec, spec.parse_shape(shape), limits_of_compute_capability(90));
    EXPECT_EQ(space.size(), 32u) << shape;
  }
  EXPECT_EQ(spec.format(spec.default_config()), "RANK=0,REDUCTION=0");
  const CompileOutput out = compile_config(spec, spec.default_config(), "sm_90");
  EXPECT_TRUE(out.ok);
  EXPECT_TRUE(out.cubin.empty());
  EXPECT_NE(out.log.find("library call"), std::string::npos);
}

TEST(LibrarySpec, RefusesWhatTheCallCannotTake) {
  Json j = bf16_family();
  j["library"]["name"] = "rocblas";
  expect_spec_error(j, "library.name: must be one of: cublasLt");
  j = bf16_family();
  j["library"]["b"] = "sideways";
  expect_spec_error(j, "library.b: must be k_by_n or n_by_k");
  j = bf16_family();
  j["library"]["compute"] = "tf32";
  expect_spec_error(j, "library.compute: tf32 takes float inputs");
  j = bf16_family();
  j["arguments"][4]["name"] = "X";  // A renamed
  j["arguments"][10]["buffer"] = "X";
  expect_spec_error(j, "takes an argument named 'A'");
  j = bf16_family();
  j["arguments"][5]["type"] = "const __half*";  // B of another type than A
  expect_spec_error(j, "arguments.B: A and B must both be");
  j = bf16_family();
  j["parameters"]["RANK"]["values"] = {0, 40};
  expect_spec_error(j, "parameters.RANK: values must be whole numbers from 0 to 31");
  j = bf16_family();
  j["parameters"].erase("RANK");
  j["parameters"]["TILE"] = {1, 2};
  expect_spec_error(j, "needs the parameter RANK");
  j = bf16_family();
  j["parameters"]["TILE"] = {1, 2};
  expect_spec_error(j, "parameters.TILE: a cublasLt family's parameters are RANK and REDUCTION");
  j = bf16_family();
  j["parameters"]["REDUCTION"]["values"] = {0, 2};
  expect_spec_error(j, "parameters.REDUCTION: values must be 0 (FP32 reductions only) or 1 (any)");
  j = bf16_family();
  j["kernel"] = "gemm_tc";
  expect_spec_error(j, "kernel: a spec with a \"library\" section has no kernel of its own");
  j = bf16_family();
  j["shape"] = {"N", "M", "K"};
  expect_spec_error(j, "shape: a cublasLt GEMM's shape is");
}

// Where cuBLASLt cannot be loaded, the message names the spec that needs it, the files looked for, and the way out.
TEST(LibrarySpec, MissingCublasLtSaysWhoNeedsItAndWhatWasLookedFor) {
  std::string why;
  EXPECT_FALSE(detail::load_cublaslt({"libcublasLt.so.not-installed"}, why));
  EXPECT_EQ(why, "none of libcublasLt.so.not-installed is on the library path");
  const std::string message = detail::cublaslt_missing("gemm_bf16_cublaslt", why);
  EXPECT_EQ(message, "gemm_bf16_cublaslt runs through cuBLASLt, which cannot be loaded: none of "
                     "libcublasLt.so.not-installed is on the library path (install the CUDA toolkit's cuBLAS, or tune "
                     "the operation's templates by their own names)");
  EXPECT_EQ(detail::cublaslt_sonames().front(), "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
}

TEST(OperationSpec, BuiltInOperationsNameATemplateAndTheLibrary) {
  EXPECT_EQ(builtin_operations(), (std::vector<std::string>{"matmul_bf16", "matmul_f16", "matmul_fp8", "matmul_fp8_e5m2",
                                                            "matmul_fp8_f16", "matmul_tf32"}));
  for (const auto& name : builtin_operations()) {
    EXPECT_TRUE(is_operation(name));
    const OperationSpec op = load_operation(name);
    // cuBLASLt by rank, and where the type has a configuration family, by algorithm and attributes too.
    const bool configured = name == "matmul_bf16" || name == "matmul_f16" || name == "matmul_tf32" || name == "matmul_fp8";
    ASSERT_EQ(op.implementations.size(), configured ? 3u : 2u) << name;
    EXPECT_FALSE(op.implementations[0].library);
    ASSERT_TRUE(op.implementations[1].library);
    EXPECT_FALSE(op.implementations[1].library->algo);
    EXPECT_EQ(op.implementations[1].name, op.implementations[0].name + "_cublaslt");
    if (configured) {
      ASSERT_TRUE(op.implementations[2].library);
      EXPECT_TRUE(op.implementations[2].library->algo);
      EXPECT_EQ(op.implementations[2].name, op.implementations[0].name + "_cublaslt_config");
    }
    EXPECT_EQ(op.untuned, 1u);  // the heuristic's first answer where nothing was measured
    EXPECT_EQ(op.find(op.implementations[0].name), &op.implementations[0]);
  }
  // Operations are not kernels: the templates and families stay tunable under their own names.
  const auto kernels = builtin_kernels();
  EXPECT_EQ(std::count(kernels.begin(), kernels.end(), "matmul_bf16"), 0);
  EXPECT_EQ(std::count(kernels.begin(), kernels.end(), "gemm_bf16"), 1);
  EXPECT_FALSE(is_operation("gemm_bf16"));
}

OperationSpec operation(const std::string& text) {
  return operation_from_json(text, [](const std::string& name) { return load_kernel(name); });
}

void expect_operation_error(const std::string& text, const std::string& part) {
  expect_error([&] { operation(text); }, part);
}

TEST(OperationSpec, ImplementationsMustTakeOneArgumentList) {
  // gemm_f16 takes __half where gemm_bf16_cublaslt takes __nv_bfloat16.
  expect_operation_error(R"({"name": "mixed", "implementations": ["gemm_bf16_cublaslt", "gemm_f16"]})",
                         "operation mixed: implementations[1]: argument 5 of gemm_f16 is A: buffer of float16, of "
                         "gemm_bf16_cublaslt A: buffer of bfloat16");
  expect_operation_error(R"({"name": "other", "implementations": ["gemm_bf16", "transpose"]})",
                         "implementations[1]: transpose's shape differs from gemm_bf16's");
  expect_operation_error(R"({"name": "twice", "implementations": ["gemm_bf16", "gemm_bf16"]})", "listed twice");
  expect_operation_error(R"({"name": "none", "implementations": []})", "implementations: must be a non-empty list");
  expect_operation_error(R"({"name": "bad", "implementations": ["gemm_bf16"], "untuned": "gemm_f16"})",
                         "untuned: must name one of the implementations");
  expect_operation_error(R"({"name": "x", "implementations": ["gemm_bf16"], "extra": 1})", "unknown field 'extra'");
  expect_operation_error(R"({"name": "9x", "implementations": ["gemm_bf16"]})", "name: must be a name");
}

TEST(OperationSpec, UntunedDefaultsToTheLibraryFamily) {
  EXPECT_EQ(operation(R"({"name": "o", "implementations": ["gemm_bf16", "gemm_bf16_cublaslt"]})").untuned, 1u);
  // The family by rank before one by attributes, wherever they are listed; a configuration family when it is alone.
  EXPECT_EQ(operation(R"({"name": "r", "implementations": ["gemm_bf16", "gemm_bf16_cublaslt_config",
                                                           "gemm_bf16_cublaslt"]})")
                .untuned,
            2u);
  EXPECT_EQ(operation(R"({"name": "c", "implementations": ["gemm_bf16", "gemm_bf16_cublaslt_config"]})").untuned, 1u);
  EXPECT_FALSE(operation(R"({"name": "t", "implementations": ["gemm_bf16"]})").untuned);
  EXPECT_EQ(operation(R"({"name": "u", "implementations": ["gemm_bf16", "gemm_bf16_cublaslt"], "untuned": "gemm_bf16"})")
                .untuned,
            0u);
}

TEST(OperationSpec, UnknownOperationNamesTheKnownOnes) {
  try {
    load_operation("matmul_int4");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown operation 'matmul_int4' (built-in operations: matmul_bf16"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cutune
