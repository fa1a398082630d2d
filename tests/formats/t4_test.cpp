// Tests of the T4 format: cutune's export against the T4 1.0.0 schema, its round trip, and both foreign dialects.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

using Json = nlohmann::json;

// Where the schema lies in the development setup. Tests must not depend on it: when it is absent (or
// python3-jsonschema is), the export is checked against the schema's requirements written out below instead.
constexpr const char* kSchema = "/work/shared/external/schemas/T4_1.0.0_results-schema.json";

// Kernel Tuner's dialect: metadata.timeunit (misspelt as Kernel Tuner writes it), times.compilation, failures
// named in the objective's value.
constexpr const char* kKernelTunerT4 = R"({"metadata": {"timeunit": "miliseconds"}, "results": [
 {"timestamp": "2023-12-22 09:54:05.502007+00:00", "configuration": {"bx": 16, "tile": 1},
  "times": {"compilation": 300.0, "framework": 1.0, "search_algorithm": 0, "validation": 0, "runtimes": [2.1, 2.0, 1.9]},
  "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 2.0, "unit": ""}], "objectives": ["time"]},
 {"timestamp": "2023-12-22 09:54:06.5+00:00", "configuration": {"bx": 16, "tile": 2},
  "times": {"compilation": 310.0, "runtimes": [1.5, 1.5]},
  "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1.5, "unit": ""}], "objectives": ["time"]},
 {"timestamp": "2023-12-22 09:54:08+00:00", "configuration": {"bx": 32, "tile": 2},
  "times": {"compilation": 400.0}, "invalidity": "runtime", "correctness": 0,
  "measurements": [{"name": "time", "value": "RuntimeFailedConfig", "unit": ""}], "objectives": ["time"]}
], "schema_version": "1.0.0"})";

// The same three configurations as a Kernel Tuner cache: its twin.
constexpr const char* kTwinCache = R"({"device_name": "NVIDIA A100-PCIE-40GB", "kernel_name": "blur",
"problem_size": [64, 32], "tune_params_keys": ["bx", "tile"], "tune_params": {"bx": [16, 32], "tile": [1, 2]},
"cache": {
"16,1": {"bx": 16, "tile": 1, "time": 2.0, "times": [2.1, 2.0, 1.9], "compile_time": 300.0, "verification_time": 0,
         "framework_time": 1.0, "strategy_time": 0},
"16,2": {"bx": 16, "tile": 2, "time": 1.5, "times": [1.5, 1.5], "compile_time": 310.0},
"32,2": {"bx": 32, "tile": 2, "time": "RuntimeFailedConfig", "compile_time": 400.0}}})";

// KTT's dialect: no metadata, times.compilation_time, times in the objective measurement's unit (microseconds).
constexpr const char* kKttT4 = R"({"schema_version": "1.0.0", "results": [
 {"timestamp": "2024-08-12 11:26:23 UTC", "configuration": {"WG_X": 16, "UNROLL": 0},
  "objectives": ["TotalDuration"], "times": {"compilation_time": 1500.0, "runtimes": [3037.408], "framework": 4.0},
  "invalidity": "correct", "correctness": 1,
  "measurements": [{"name": "TotalDuration", "value": 3037.408, "unit": "Microseconds"},
                   {"name": "dram__sectors_read.sum", "value": 2100194.0, "unit": ""}]}]})";

class T4 : public TempDirTest {
 protected:
  // A database with one result of every status, two runs on two devices.
  void fill(Database& db) {
    const KernelIdentity k{"transpose", "0123456789abcdef"};
    const auto h100 = db.begin_run(synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132), k, "tune transpose");
    db.record(h100, "1024x1024", ok_result("TILE=32,PAD=1", 0.25));
    db.record(h100, "1024x1024", ok_result("TILE=16,PAD=0", 0.5));
    db.record(h100, "1024x1024", failed_result("TILE=64,PAD=1", Status::CompileError, "error: too big"));
    db.record(h100, "1024x1024", failed_result("TILE=64,PAD=0", Status::LaunchError, "too many resources"));
    db.finish_run(h100, synthetic_run_times(4.0));
    const auto a100 = db.begin_run(synthetic_device("NVIDIA A100-SXM4-80GB", 8, 0, 108), k, "tune transpose");
    db.record(a100, "2048x512", failed_result("TILE=8,PAD=1", Status::RuntimeError, "illegal address"));
    db.record(a100, "2048x512", failed_result("TILE=8,PAD=0", Status::WrongResult, "max error 1"));
    db.record(a100, "2048x512", failed_result("TILE=4,PAD=0", Status::Timeout, "hang"));
  }
  std::string export_t4(Database& db) {
    std::ostringstream out;
    export_runs(db, "t4", out);
    return out.str();
  }
  static DeviceIdentity a100_pcie() { return synthetic_device("NVIDIA A100-PCIE-40GB", 8, 0, 108); }
};

TEST_F(T4, ExportHasTheSchemasRequiredStructure) {
  Database db(path("db.sqlite"));
  fill(db);
  const Json doc = Json::parse(export_t4(db));
  EXPECT_EQ(doc.at("schema_version"), "1.0.0");
  const Json& results = doc.at("results");
  ASSERT_EQ(results.size(), 7u);
  const std::set<std::string> invalidities{"timeout", "compile", "runtime", "correctness", "constraints", "correct"};
  std::multiset<std::string> seen;
  for (const Json& r : results) {
    EXPECT_TRUE(r.at("configuration").is_object());
    EXPECT_TRUE(r.at("times").is_object());
    EXPECT_TRUE(r.at("times").at("runtimes").is_array());
    EXPECT_TRUE(r.at("correctness").is_number());
    EXPECT_TRUE(r.at("measurements").is_array());
    ASSERT_TRUE(invalidities.count(r.at("invalidity").get<std::string>()));
    seen.insert(r.at("invalidity").get<std::string>());
  }
  EXPECT_EQ(seen.count("correct"), 2u);
  EXPECT_EQ(seen, (std::multiset<std::string>{"correct", "correct", "compile", "constraints", "runtime",
                                              "correctness", "timeout"}));
  const Json& fastest = results[0];
  EXPECT_EQ(fastest.at("configuration"), (Json{{"TILE", 32}, {"PAD", 1}}));
  EXPECT_EQ(fastest.at("measurements")[0].at("value"), 0.25);
}

// Every field of T4's "times" from cutune's own figures; what T4 has no field for (the timed runs' wall time, where a
// run's time went) in cutune's own places.
TEST_F(T4, ExportFillsEveryTimeT4Has) {
  Database db(path("db.sqlite"));
  fill(db);
  const Json doc = Json::parse(export_t4(db));
  const Json& fastest = doc.at("results")[0];
  EXPECT_EQ(fastest.at("times"), (Json{{"runtimes", {0.255, 0.25, 0.245}}, {"compilation_time", 120.0},
                                        {"validation", 0.4}, {"framework", 0.75}, {"search_algorithm", 0.125}}));
  EXPECT_EQ(fastest.at("cutune").at("benchmark_ms"), 2.5);
  const Json& compile_error = doc.at("results")[2];
  EXPECT_EQ(compile_error.at("invalidity"), "compile");
  EXPECT_EQ(compile_error.at("times").at("validation"), 0.0);  // it never ran: no time spent verifying
  const Json& runs = doc.at("metadata").at("cutune_runs");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("times").at("measure_s"), 2.0);
  EXPECT_EQ(runs[0].at("times").at("compile_cpu_s"), 32.0);
  EXPECT_FALSE(runs[1].contains("times"));  // the A100 run never ended
}

TEST_F(T4, ExportValidatesAgainstTheSchemaWhenAvailable) {
  if (!fs::exists(kSchema) || std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no T4 schema at " << kSchema << " or no python3-jsonschema; the structure test covers the export";
  }
  Database db(path("db.sqlite"));
  fill(db);
  write_bytes(path("out.t4.json"), export_t4(db));
  const std::string check = "python3 -c 'import json, sys, jsonschema; "
                            "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' " +
                            path("out.t4.json").string() + " " + kSchema;
  EXPECT_EQ(std::system(check.c_str()), 0);
  // The check can fail: a document breaking the schema's enum is refused.
  write_bytes(path("bad.t4.json"), R"({"results": [{"configuration": {}, "times": {}, "invalidity": "fine",
                                       "correctness": 1}]})");
  const std::string bad = "python3 -c 'import json, sys, jsonschema; "
                          "jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' " +
                          path("bad.t4.json").string() + " " + kSchema + " 2>/dev/null";
  EXPECT_NE(std::system(bad.c_str()), 0);
}

TEST_F(T4, ExportReadsBackIntoTheSameRuns) {
  Database db(path("db.sqlite"));
  fill(db);
  write_bytes(path("out.t4.json"), export_t4(db));
  Database copy(path("copy.sqlite"));
  const ImportSummary s = import_file(copy, path("out.t4.json"));  // detected as t4
  EXPECT_EQ(s.new_runs, 2u);
  EXPECT_EQ(copy.runs().at(0).measurements.at(0).result.blocks_per_sm, 4);  // the fixture's, not a default
  EXPECT_EQ(s.new_measurements, 7u);
  const auto before = db.runs();
  const auto after = copy.runs();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].uid, before[i].uid);
    EXPECT_EQ(after[i].kernel.hash, before[i].kernel.hash);
    EXPECT_EQ(after[i].device.sm_count, before[i].device.sm_count);
    ASSERT_EQ(after[i].times.has_value(), before[i].times.has_value());
    if (before[i].times) expect_same_times(*after[i].times, *before[i].times);
    ASSERT_EQ(after[i].measurements.size(), before[i].measurements.size());
    for (std::size_t m = 0; m < before[i].measurements.size(); ++m) {
      const Result& a = after[i].measurements[m].result;
      const Result& b = before[i].measurements[m].result;
      EXPECT_EQ(a.config, b.config);
      EXPECT_EQ(a.status, b.status);
      EXPECT_EQ(a.message, b.message);
      EXPECT_DOUBLE_EQ(a.median_ms, b.median_ms);
      EXPECT_EQ(a.registers, b.registers);
      EXPECT_EQ(a.spill_bytes, b.spill_bytes);
      EXPECT_EQ(a.static_smem_bytes, b.static_smem_bytes);
      EXPECT_EQ(a.dynamic_smem_bytes, b.dynamic_smem_bytes);
      EXPECT_EQ(a.threads_per_block, b.threads_per_block);
      EXPECT_EQ(a.blocks, b.blocks);
      EXPECT_EQ(a.blocks_per_sm, b.blocks_per_sm);
      EXPECT_EQ(a.peak, b.peak);
      expect_same_times(a, b);
      EXPECT_EQ(after[i].measurements[m].measured_at, before[i].measurements[m].measured_at);
    }
  }
  // Merged back into the original, nothing is new.
  EXPECT_EQ(import_file(db, path("out.t4.json"), "t4").new_measurements, 0u);
}

TEST_F(T4, KernelTunerDialectNeedsTheIdentityItLacks) {
  write_bytes(path("kt.t4.json"), kKernelTunerT4);
  Database db(path("db.sqlite"));
  try {
    import_file(db, path("kt.t4.json"));
    FAIL() << "a T4 file without a device was imported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.stats().runs, 0);
}

TEST_F(T4, KernelTunerDialectAndItsCacheTwinGiveTheSameRecords) {
  write_bytes(path("kt.t4.json"), kKernelTunerT4);
  write_bytes(path("cache.json"), kTwinCache);
  Database from_t4(path("t4.sqlite"));
  Database from_cache(path("cache.sqlite"));
  import_foreign_file(from_t4, path("kt.t4.json"), "", {"NVIDIA A100-PCIE-40GB", "blur", "64x32"});
  import_file(from_cache, path("cache.json"));
  const KernelIdentity blur{"blur", foreign_kernel_hash("blur", "bx,tile")};
  const auto a = from_t4.results(a100_pcie(), blur, "64x32");
  const auto b = from_cache.results(a100_pcie(), blur, "64x32");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].config, b[i].config);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].message, b[i].message);
    EXPECT_DOUBLE_EQ(a[i].median_ms, b[i].median_ms);
    EXPECT_EQ(a[i].samples_ms, b[i].samples_ms);
    expect_same_times(a[i], b[i]);  // benchmark_ms too: unknown in both (T4 has no field for it)
  }
  EXPECT_DOUBLE_EQ(a[1].framework_ms, 1.0);  // bx=16,tile=1: the times Kernel Tuner kept
  EXPECT_EQ(a[1].verify_ms, 0.0);
  EXPECT_TRUE(std::isnan(a[0].framework_ms));  // none kept: unknown
  EXPECT_EQ(a[0].config, "bx=16,tile=2");
  EXPECT_EQ(a[2].status, Status::RuntimeError);
  EXPECT_EQ(from_t4.runs()[0].started_at, "2023-12-22T09:54:05.502007Z");
}

TEST_F(T4, KttDialectInMicroseconds) {
  write_bytes(path("ktt.t4.json"), kKttT4);
  Database db(path("db.sqlite"));
  const ImportSummary s =
      import_foreign_file(db, path("ktt.t4.json"), "t4", {"NVIDIA GeForce RTX 2080", "coulomb", "256x256x256"});
  EXPECT_EQ(s.new_measurements, 1u);
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].device.sm_count, 46);
  EXPECT_EQ(runs[0].started_at, "2024-08-12T11:26:23.000000Z");
  const Result& r = runs[0].measurements.at(0).result;
  EXPECT_EQ(r.config, "WG_X=16,UNROLL=0");
  EXPECT_EQ(r.status, Status::Ok);
  EXPECT_DOUBLE_EQ(r.median_ms, 3.037408);
  EXPECT_DOUBLE_EQ(r.compile_ms, 1.5);
  EXPECT_DOUBLE_EQ(r.framework_ms, 0.004);  // in the measurement's unit too
  EXPECT_TRUE(std::isnan(r.verify_ms));
  ASSERT_EQ(r.samples_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(r.samples_ms[0], 3.037408);
}

TEST_F(T4, ContextOptionsRefuseOtherFormats) {
  Database db(path("db.sqlite"));
  fill(db);
  std::ostringstream out;
  export_runs(db, "json", out);
  write_bytes(path("runs.json"), out.str());
  Database other(path("other.sqlite"));
  EXPECT_THROW(import_foreign_file(other, path("runs.json"), "json", {"X", "", ""}), InputError);
}

}  // namespace
}  // namespace cutune::testing
