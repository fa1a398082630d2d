// An operation where `tune` takes a kernel's name: `tune best` (the implementation the runtime launches, and each
// one's answer), `tune space` (each implementation's space), and the commands that refuse one, saying why.
#include <optional>

#include "cli_support.hpp"
#include "cutune/operation.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

using OperationCli = cutune::test::TuneCommandTest;

constexpr const char* kGpu = " --gpu 'NVIDIA H100 80GB HBM3'";

// A database where the template and cuBLASLt were measured at 256x256x256 on an H100, `template_ms` and 0.4 ms (by
// rank), and cuBLASLt configured by attributes `config_ms` when given.
void measured_at_256(const std::filesystem::path& file, double template_ms, std::optional<double> config_ms = {}) {
  const OperationSpec op = load_operation("matmul_bf16");
  const KernelSpec& tpl = *op.find("gemm_bf16");
  const KernelSpec& lib = *op.find("gemm_bf16_cublaslt");
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  Database db(file);
  db.record(db.begin_run(h100, {lib.name, lib.hash}, "test"), "256x256x256", ok_result("RANK=0,REDUCTION=0", 0.4));
  db.record(db.begin_run(h100, {tpl.name, tpl.hash}, "test"), "256x256x256",
            ok_result(tpl.format(tpl.default_config()), template_ms));
  if (config_ms) {
    const KernelSpec& config = *op.find("gemm_bf16_cublaslt_config");
    db.record(db.begin_run(h100, {config.name, config.hash}, "test"), "256x256x256",
              ok_result("ALGO=24,TILE=17,STAGES=0,SPLITK=8,SCHEME=2,SWIZZLE=0,CUSTOM=0,CLUSTER=7", *config_ms));
  }
}

TEST_F(OperationCli, BestNamesTheImplementationLaunchedAndWhy) {
  measured_at_256(dir_ / "r.db", 0.5);
  auto r = tune(std::string("best --kernel matmul_bf16 --shape 256x256x256 --db r.db") + kGpu);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("operation matmul_bf16: launches gemm_bf16_cublaslt, the fastest of the implementations "
                       "measured at this shape"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("config   RANK=0,REDUCTION=0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemm_bf16                  0.5000      0.800x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemm_bf16_cublaslt         0.4000      1.000x    exact shape  <- launched"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("gemm_bf16_cublaslt_config  -           -         spec default"), std::string::npos) << r.out;

  // Where nobody measured: cuBLASLt's own answer, as the template was not 5% faster where both were measured.
  r = tune(std::string("best --kernel matmul_bf16 --shape 512x512x512 --db r.db") + kGpu);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("launches gemm_bf16_cublaslt, no implementation measured at this shape: the untuned"),
            std::string::npos) << r.out;
  r = tune(std::string("best --kernel matmul_bf16 --shape 512x512x512 --db r.db --exact") + kGpu);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no correct configuration of any implementation of matmul_bf16"), std::string::npos) << r.err;
}

// cuBLASLt configured by attributes, fastest where it was measured, is launched there; elsewhere the heuristic's answer.
TEST_F(OperationCli, BestLaunchesCublasLtsConfigurationWhereItWasFastest) {
  measured_at_256(dir_ / "r.db", 0.5, 0.32);
  auto r = tune(std::string("best --kernel matmul_bf16 --shape 256x256x256 --db r.db") + kGpu);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("operation matmul_bf16: launches gemm_bf16_cublaslt_config, the fastest"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("config   ALGO=24,TILE=17,STAGES=0,SPLITK=8,SCHEME=2,SWIZZLE=0,CUSTOM=0,CLUSTER=7"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemm_bf16_cublaslt         0.4000      0.800x"), std::string::npos) << r.out;
  r = tune(std::string("best --kernel matmul_bf16 --shape 320x256x256 --db r.db") + kGpu);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("launches gemm_bf16_cublaslt, no implementation measured at this shape"), std::string::npos)
      << r.out;
}

TEST_F(OperationCli, BestAtAnUntunedShapeLaunchesATemplateThatClearlyWonNearby) {
  measured_at_256(dir_ / "r.db", 0.3);  // 1.33x cuBLASLt's speed where both were measured
  const auto r = tune(std::string("best --kernel matmul_bf16 --shape 320x256x256 --db r.db") + kGpu);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("launches gemm_bf16, predicted from 256x256x256 (log distance 0.22, at most 0.50), where this "
                       "GPU measured it 1.333x as fast as gemm_bf16_cublaslt"), std::string::npos) << r.out;
}

TEST_F(OperationCli, SpaceCountsEachImplementation) {
  auto r = tune("space --kernel matmul_bf16 --shape 127x255x67");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("valid configurations of gemm_bf16 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("32 valid configurations of gemm_bf16_cublaslt ("), std::string::npos) << r.out;
  // Its spec's constraints only: what cuBLASLt runs at the shape is known when tuning there.
  EXPECT_NE(r.out.find("2444288 valid configurations of gemm_bf16_cublaslt_config ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("matmul_bf16: 3 implementations"), std::string::npos) << r.out;
  r = tune("space --kernel matmul_bf16 --shape 127x255x67 --list --where 'RANK == 0'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--where names one kernel's parameters"), std::string::npos) << r.err;
  r = tune("space --kernel matmul_bf16 --shape 64x64x64 --list --shard 1/1024");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::size_t lib = r.out.find("# gemm_bf16_cublaslt\n");
  ASSERT_NE(lib, std::string::npos) << r.err;
  EXPECT_NE(r.out.find("RANK=0,REDUCTION=0\n", lib), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 valid configurations of gemm_bf16_cublaslt ("), std::string::npos) << r.err;
  const std::size_t config = r.out.find("# gemm_bf16_cublaslt_config\n");
  ASSERT_NE(config, std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\nALGO=11,TILE=0,STAGES=0,SPLITK=-1,SCHEME=2,", config), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("2387 valid configurations of gemm_bf16_cublaslt_config in part 1/1024", config),
            std::string::npos) << r.err;
}

TEST_F(OperationCli, CommandsWithoutAMeaningForAnOperationSayWhy) {
  auto r = tune("compile --kernel matmul_bf16 --shape 64x64x64");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("'matmul_bf16' is an operation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gemm_bf16, gemm_bf16_cublaslt"), std::string::npos) << r.err;
  r = tune("--kernel matmul_bf16 --shapes 64x64x64 --start BM=64");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is an operation"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cutune::testing
