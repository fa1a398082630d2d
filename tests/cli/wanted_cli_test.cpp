// `tune wanted` and `tune --wanted`: the list on any machine; on a GPU, a Runtime's requests of untuned shapes
// recorded, then tuned by `tune --wanted` and no longer wanted.
#include "cli_support.hpp"
#include "cutune/device.hpp"
#include "cutune/operation.hpp"
#include "cutune/requests.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"
#include "gpu_support.hpp"

namespace cutune::testing {
namespace {

using WantedCliTest = cutune::test::TuneCommandTest;

WantedShape wanted_at(const DeviceIdentity& device, const std::string& kernel, const std::string& hash,
                      const std::string& shape) {
  WantedShape w;
  w.kernel = {kernel, hash};
  w.device = device;
  w.flush = L2Flush::Read;
  w.shape = shape;
  w.count = 2;
  w.first_at = "2026-01-01T00:00:00.000000Z";
  w.last_at = "2026-01-02T00:00:00.000000Z";
  return w;
}

TEST_F(WantedCliTest, ListsTheWantedShapesAndWhetherEachIsTuned) {
  const KernelSpec spec = load_kernel("transpose");
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  {
    Database db(dir_ / "w.db");
    db.add_wanted({wanted_at(h100, spec.name, spec.hash, "1000x700"), wanted_at(h100, spec.name, spec.hash, "64x64")});
    db.record(db.begin_run(h100, {spec.name, spec.hash}, "test"), "64x64",
              ok_result("TILE=32,VEC=2,ROWS=8,SMEM=1,PAD=1,COALESCE=0", 0.01));
  }
  auto r = tune("wanted --db w.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1000x700"), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.find("1000x700") != std::string::npos) {
      EXPECT_NE(line.find(" no"), std::string::npos) << line;
      ++rows;
    }
    if (line.find("64x64") != std::string::npos) {
      EXPECT_NE(line.find(" yes"), std::string::npos) << line;
      ++rows;
    }
  }
  EXPECT_EQ(rows, 2) << r.out;

  // A file a Runtime saved (its database was read-only) adds to the list; a bad one changes nothing.
  save_wanted({wanted_at(h100, spec.name, spec.hash, "4096x4096")}, dir_ / "kept.json");
  r = tune("wanted --db w.db --add kept.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("4096x4096"), std::string::npos) << r.out;
  write_bytes(dir_ / "bad.json", "[{\"kernel\": 1}]");
  r = tune("wanted --db w.db --add bad.json");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_EQ(Database(dir_ / "w.db").wanted().size(), 3u);
}

// An operation's wanted shape (recorded by the runtime under the operation's name) is tuned once every implementation
// has a result there.
TEST_F(WantedCliTest, AnOperationsWantedShapeIsTunedWhenEveryImplementationIsMeasured) {
  const OperationSpec op = load_operation("matmul_bf16");
  const KernelSpec& tpl = *op.find("gemm_bf16");
  const KernelSpec& lib = *op.find("gemm_bf16_cublaslt");
  const KernelSpec& config = *op.find("gemm_bf16_cublaslt_config");
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  {
    Database db(dir_ / "w.db");
    db.add_wanted({wanted_at(h100, op.name, op.hash(), "256x256x256"), wanted_at(h100, op.name, op.hash(), "96x96x96")});
    db.record(db.begin_run(h100, {lib.name, lib.hash}, "test"), "256x256x256", ok_result("RANK=0,REDUCTION=0", 0.01));
    db.record(db.begin_run(h100, {tpl.name, tpl.hash}, "test"), "256x256x256", ok_result(tpl.format(tpl.default_config()), 0.02));
    db.record(db.begin_run(h100, {config.name, config.hash}, "test"), "256x256x256",
              ok_result(config.format(config.default_config()), 0.01));
    // At 96x96x96 the template and cuBLASLt by rank, not by attributes: not tuned.
    db.record(db.begin_run(h100, {lib.name, lib.hash}, "test"), "96x96x96", ok_result("RANK=0,REDUCTION=0", 0.01));
    db.record(db.begin_run(h100, {tpl.name, tpl.hash}, "test"), "96x96x96", ok_result(tpl.format(tpl.default_config()), 0.02));
  }
  auto r = tune("wanted --db w.db");
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.find("matmul_bf16") == std::string::npos) continue;
    ++rows;
    const bool tuned = line.find("256x256x256") != std::string::npos;
    EXPECT_NE(line.find(tuned ? " yes" : " no"), std::string::npos) << line;
  }
  EXPECT_EQ(rows, 2) << r.out;
  Database db(dir_ / "w.db");
  EXPECT_EQ(untuned_wanted_shapes(db, op, h100, L2Flush::Read), (std::vector<std::string>{"96x96x96"}));
  EXPECT_TRUE(untuned_wanted_shapes(db, tpl, h100, L2Flush::Read).empty());  // the template itself is not wanted
}

TEST_F(WantedCliTest, RefusesWhatItCannotDo) {
  auto r = tune("wanted --db missing.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  r = tune("--wanted --db missing.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  { Database db(dir_ / "w.db"); }
  r = tune("--wanted --kernel transpose --shapes 64x64 --db w.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("leave out --shapes"), std::string::npos) << r.err;
}

// On the GPU: a Runtime asked for two untuned shapes (one twice); `tune --wanted` tunes exactly those, after which
// the Runtime launches their own results and a second `tune --wanted` has nothing to do.
TEST_F(WantedCliTest, ARuntimesUntunedShapesAreTunedByTuneWanted) {
  REQUIRE_GPU();
  auto r = tune("--kernel transpose --shapes 1024x1024 --budget 3 --db w.db");
  ASSERT_EQ(r.code, 0) << r.err;
  RuntimeOptions options;
  options.database = dir_ / "w.db";
  options.cache_directory = dir_ / "cubins";
  {
    Runtime runtime(options);
    EXPECT_EQ(runtime.kernel("transpose", "1024x1024").choice().match, Match::Exact);
    EXPECT_EQ(runtime.kernel("transpose", "1000x700").choice().match, Match::Predicted);
    runtime.kernel("transpose", "1000x700");
    runtime.kernel("transpose", "300x200");
    ASSERT_EQ(runtime.wanted().size(), 2u);
  }
  auto wanted = Database(dir_ / "w.db").wanted();
  ASSERT_EQ(wanted.size(), 2u);
  for (const auto& w : wanted) EXPECT_EQ(w.count, w.shape == "1000x700" ? 2 : 1) << w.shape;

  r = tune("--wanted --budget 3 --db w.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 wanted shape(s)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1024x1024:"), std::string::npos) << r.out;
  Runtime again(options);
  EXPECT_EQ(again.kernel("transpose", "1000x700").choice().match, Match::Exact);
  EXPECT_EQ(again.kernel("transpose", "300x200").choice().match, Match::Exact);
  EXPECT_TRUE(again.wanted().empty());
  r = tune("--wanted --budget 3 --db w.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing to tune"), std::string::npos) << r.out;
}

// On the GPU: a Runtime asked for an operation at an untuned shape records it under the operation's name; `tune
// --wanted` tunes every implementation there, after which the Runtime launches the winner measured at the shape.
TEST_F(WantedCliTest, AnOperationsUntunedShapeIsTunedByTuneWanted) {
  REQUIRE_GPU();
  { Database db(dir_ / "w.db"); }
  RuntimeOptions options;
  options.database = dir_ / "w.db";
  options.cache_directory = dir_ / "cubins";
  {
    Runtime runtime(options);
    EXPECT_NE(runtime.kernel("matmul_bf16", "192x160x128").choice().match, Match::Exact);
    const auto wanted = runtime.wanted();
    ASSERT_EQ(wanted.size(), 1u);
    EXPECT_EQ(wanted.front().kernel.name, "matmul_bf16");
  }
  auto r = tune("--wanted --budget 4 --db w.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("matmul_bf16: 1 wanted shape(s)"), std::string::npos) << r.out;
  const OperationSpec op = load_operation("matmul_bf16");
  Database db(dir_ / "w.db");
  EXPECT_TRUE(operation_tuned_at(db, op, Device(0).identity(), "192x160x128", L2Flush::Read));
  Runtime again(options);
  EXPECT_EQ(again.kernel("matmul_bf16", "192x160x128").choice().match, Match::Exact);
  EXPECT_TRUE(again.wanted().empty());
}

}  // namespace
}  // namespace cutune::testing
