// Tests of importing Kernel Tuner cache files into a database: identities, status mapping, times, and twins.
#include <zlib.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

// A cache of a 2-parameter kernel on an A100, with each of Kernel Tuner's failure kinds.
constexpr const char* kCache = R"({
"device_name": "NVIDIA A100-PCIE-40GB", "kernel_name": "blur", "problem_size": [64, 32],
"tune_params_keys": ["bx", "tile"], "tune_params": {"bx": [16, 32, 64], "tile": [1, 2]}, "objective": "time",
"cache": {
"16,1": {"bx": 16, "tile": 1, "time": 2.0, "times": [2.1, 2.0, 1.9], "compile_time": 300.0, "timestamp": "2023-12-22 09:54:05.502007+00:00"},
"16,2": {"bx": 16, "tile": 2, "time": 1.5, "times": [1.5, 1.5], "compile_time": 310.0, "timestamp": "2023-12-22 09:54:06.5+00:00"},
"32,1": {"bx": 32, "tile": 1, "time": "CompilationFailedConfig", "timestamp": "2023-12-22 09:54:07.000001+00:00"},
"32,2": {"bx": 32, "tile": 2, "time": "RuntimeFailedConfig", "timestamp": "2023-12-22 09:54:08+00:00"},
"64,1": {"bx": 64, "tile": 1, "time": "InvalidConfig", "timestamp": "2023-12-22 09:54:09+00:00"},
"64,2": {"bx": 64, "tile": 2, "time": 0.75, "times": [0.7, 0.8], "compile_time": 320.0, "verification_time": 0.5,
         "benchmark_time": 126.5, "framework_time": 105.25, "strategy_time": 0.75, "timestamp": "2023-12-22 09:54:10+00:00"}
}})";

class KtImport : public TempDirTest {
 protected:
  fs::path write_gz(const std::string& name, const std::string& text) const {
    const fs::path p = path(name);
    gzFile out = gzopen(p.c_str(), "wb");
    EXPECT_NE(out, nullptr);
    EXPECT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
    return p;
  }
  static DeviceIdentity a100() { return synthetic_device("NVIDIA A100-PCIE-40GB", 8, 0, 108); }
  static KernelIdentity blur() { return {"blur", foreign_kernel_hash("blur", "bx,tile")}; }
};

TEST_F(KtImport, CacheBecomesOneForeignRun) {
  write_bytes(path("c.json"), kCache);
  Database db(path("db.sqlite"));
  const ImportSummary s = import_file(db, path("c.json"));  // detected without --format
  EXPECT_EQ(s.new_runs, 1u);
  EXPECT_EQ(s.new_measurements, 6u);

  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 1u);
  const RunRecord& run = runs[0];
  EXPECT_EQ(run.device.cc_major, 8);
  EXPECT_EQ(run.device.cc_minor, 0);
  EXPECT_EQ(run.device.sm_count, 108);
  EXPECT_EQ(run.kernel.name, "blur");
  EXPECT_EQ(run.kernel.hash, blur().hash);
  EXPECT_EQ(run.host, "(imported)");
  EXPECT_NE(run.command.find("kt-cache file 'c.json'"), std::string::npos) << run.command;
  EXPECT_EQ(run.started_at, "2023-12-22T09:54:05.502007Z");

  const auto results = db.results(a100(), blur(), "64x32");
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].config, "bx=64,tile=2");
  EXPECT_DOUBLE_EQ(results[0].median_ms, 0.75);
  EXPECT_DOUBLE_EQ(results[0].min_ms, 0.7);
  EXPECT_DOUBLE_EQ(results[0].max_ms, 0.8);
  EXPECT_DOUBLE_EQ(results[0].compile_ms, 320.0);
  EXPECT_EQ(results[1].config, "bx=16,tile=2");
  EXPECT_EQ(results[2].config, "bx=16,tile=1");
  EXPECT_EQ(results[2].samples_ms, (std::vector<double>{2.1, 2.0, 1.9}));
  std::map<std::string, Status> failures;
  for (std::size_t i = 3; i < results.size(); ++i) failures[results[i].config] = results[i].status;
  EXPECT_EQ(failures.at("bx=32,tile=1"), Status::CompileError);
  EXPECT_EQ(failures.at("bx=32,tile=2"), Status::RuntimeError);
  EXPECT_EQ(failures.at("bx=64,tile=1"), Status::LaunchError);

  const auto best = db.best({"blur", "", a100(), "64x32"});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->result.config, "bx=64,tile=2");
}

// Kernel Tuner's verification, benchmark, framework and strategy times are kept, and fill T4's "times" on export.
TEST_F(KtImport, KernelTunersTimesAreKeptAndExportedToT4) {
  write_bytes(path("c.json"), kCache);
  Database db(path("db.sqlite"));
  import_file(db, path("c.json"));
  const auto results = db.results(a100(), blur(), "64x32");
  ASSERT_EQ(results[0].config, "bx=64,tile=2");
  EXPECT_DOUBLE_EQ(results[0].verify_ms, 0.5);
  EXPECT_DOUBLE_EQ(results[0].benchmark_ms, 126.5);
  EXPECT_DOUBLE_EQ(results[0].framework_ms, 105.25);
  EXPECT_DOUBLE_EQ(results[0].search_ms, 0.75);
  EXPECT_TRUE(std::isnan(results[1].verify_ms));  // a record without them: unknown, not zero
  EXPECT_TRUE(std::isnan(results[1].search_ms));

  std::ostringstream out;
  export_runs(db, "t4", out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  const nlohmann::json* timed = nullptr;
  for (const auto& r : doc.at("results"))
    if (r.at("cutune").at("config") == "bx=64,tile=2") timed = &r;
  ASSERT_NE(timed, nullptr);
  EXPECT_EQ(timed->at("times"), (nlohmann::json{{"runtimes", {0.7, 0.8}}, {"compilation_time", 320.0},
                                                {"validation", 0.5}, {"framework", 105.25},
                                                {"search_algorithm", 0.75}}));
  EXPECT_EQ(timed->at("cutune").at("benchmark_ms"), 126.5);

  // And read back from T4, they are the same.
  write_bytes(path("out.t4.json"), out.str());
  Database copy(path("copy.sqlite"));
  import_file(copy, path("out.t4.json"));
  const auto back = copy.results(a100(), blur(), "64x32");
  ASSERT_EQ(back.size(), results.size());
  for (std::size_t i = 0; i < back.size(); ++i) expect_same_times(back[i], results[i]);
}

TEST_F(KtImport, GzipIsDetectedAndImportingTwiceChangesNothing) {
  const fs::path file = write_gz("c.json.gz", kCache);
  Database db(path("db.sqlite"));
  EXPECT_EQ(import_file(db, file).new_measurements, 6u);
  const ImportSummary again = import_file(db, file);
  EXPECT_EQ(again.new_runs, 0u);
  EXPECT_EQ(again.new_measurements, 0u);
  EXPECT_EQ(db.stats().measurements, 6);
}

TEST_F(KtImport, ContextReplacesTheFilesIdentity) {
  write_bytes(path("c.json"), kCache);
  Database db(path("db.sqlite"));
  import_foreign_file(db, path("c.json"), "kt-cache", {"Mystery GPU 9000", "blur2", "8x8"});
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].device.name, "Mystery GPU 9000");
  EXPECT_EQ(runs[0].device.cc_major, 0);
  EXPECT_EQ(runs[0].device.sm_count, 0);
  EXPECT_NE(runs[0].command.find("not in cutune's table"), std::string::npos) << runs[0].command;
  EXPECT_EQ(runs[0].kernel.name, "blur2");
  EXPECT_EQ(runs[0].measurements.front().shape, "8x8");
}

TEST_F(KtImport, MissingProblemSizeNamesTheOption) {
  std::string text = kCache;
  text.replace(text.find("\"problem_size\": [64, 32],"), 25, "");
  write_bytes(path("c.json"), text);
  Database db(path("db.sqlite"));
  try {
    import_file(db, path("c.json"), "kt-cache");
    FAIL() << "a cache without a problem size was imported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--shape"), std::string::npos) << e.what();
  }
}

TEST_F(KtImport, KnownGpuTableMatchesWholeModelNames) {
  ASSERT_TRUE(known_gpu("NVIDIA A100-SXM4-80GB"));
  EXPECT_EQ(known_gpu("A100")->sm_count, 108);
  EXPECT_EQ(known_gpu("NVIDIA GeForce RTX 2080 Ti")->sm_count, 68);
  EXPECT_EQ(known_gpu("RTX 2080")->sm_count, 46);
  EXPECT_EQ(known_gpu("NVIDIA RTX A4000")->sm_count, 48);
  EXPECT_EQ(known_gpu("NVIDIA RTX A6000")->cc_minor, 6);
  EXPECT_FALSE(known_gpu("NVIDIA RTX A1000"));  // not an A100
  EXPECT_FALSE(known_gpu("AMD Instinct MI250X"));
}

TEST_F(KtImport, StatusMapping) {
  EXPECT_EQ(foreign_status("CompilationFailedConfig"), Status::CompileError);
  EXPECT_EQ(foreign_status("compile"), Status::CompileError);
  EXPECT_EQ(foreign_status("InvalidConfig"), Status::LaunchError);
  EXPECT_EQ(foreign_status("constraints"), Status::LaunchError);
  EXPECT_EQ(foreign_status("RuntimeFailedConfig"), Status::RuntimeError);
  EXPECT_EQ(foreign_status("runtime"), Status::RuntimeError);
  EXPECT_EQ(foreign_status("timeout"), Status::Timeout);
  EXPECT_EQ(foreign_status("correctness"), Status::WrongResult);
  EXPECT_EQ(foreign_status("correct"), Status::Ok);
  EXPECT_EQ(foreign_status("NonFiniteTime"), Status::RuntimeError);
}

}  // namespace
}  // namespace cutune::testing
