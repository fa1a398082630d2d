// Tests of writing runs as Kernel Tuner cache files, and of selecting what an export writes.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/kt_cache.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

using Json = nlohmann::json;

const KernelIdentity kGemm{"gemm", "1111111111111111"};
const std::string kShape = "1024x2048";

class KtExport : public TempDirTest {
 protected:
  static RunRecord run_of(const std::string& uid, const DeviceIdentity& device, L2Flush flush = L2Flush::Read) {
    RunRecord run;
    run.uid = uid;
    run.device = device;
    run.kernel = kGemm;
    run.started_at = "2025-03-01T10:00:00.000000Z";
    run.host = "node1";
    run.cutune_version = "0.1.0";
    run.command = "tune --kernel gemm";
    run.flush = flush;
    return run;
  }
  static void add(RunRecord& run, const Result& result, const std::string& measured_at,
                  const std::string& shape = kShape) {
    run.measurements.push_back({shape, result, measured_at});
  }
  static std::string write(const std::vector<RunRecord>& runs) {
    std::ostringstream out;
    exchange_format("kt-cache").write(runs, out);
    return out.str();
  }
  static Result timed(const std::string& config, double median, Status status = Status::Ok) {
    Result r = ok_result(config, median);
    r.status = status;
    return r;
  }

  // gemm on the H200 at two shapes, and on the L4 at one without an L2 flush.
  std::vector<RunRecord> three_groups() const {
    RunRecord h200 = run_of("r1", h200_);
    add(h200, timed("BM=64", 1.0), "2025-03-01T10:00:01.000000Z");
    add(h200, timed("BM=64", 3.0), "2025-03-01T10:00:02.000000Z", "4096x4096");
    RunRecord l4 = run_of("r2", l4_, L2Flush::None);
    add(l4, timed("BM=64", 2.0), "2025-03-01T10:00:03.000000Z");
    return {h200, l4};
  }

  DeviceIdentity h200_ = synthetic_device("NVIDIA H200", 9, 0, 132, "GPU-a");
  DeviceIdentity l4_ = synthetic_device("NVIDIA L4", 8, 9, 58, "GPU-b");
};

TEST_F(KtExport, RoundTripKeepsConfigurationsTimesAndStatuses) {
  RunRecord run = run_of("r1", h200_);
  add(run, timed("BM=64,BN=32", 1.25), "2025-03-01T10:00:01.000000Z");
  add(run, timed("BM=128,BN=32", 0.75), "2025-03-01T10:00:02.000000Z");
  add(run, timed("BM=128,BN=64", 0.5, Status::Unverified), "2025-03-01T10:00:03.000000Z");
  add(run, failed_result("BM=256,BN=32", Status::CompileError, "error: too big"), "2025-03-01T10:00:04.000000Z");
  add(run, failed_result("BM=256,BN=64", Status::LaunchError, "too many resources"), "2025-03-01T10:00:05.000000Z");
  add(run, failed_result("BM=512,BN=32", Status::RuntimeError, "illegal address"), "2025-03-01T10:00:06.000000Z");
  add(run, failed_result("BM=512,BN=64", Status::WrongResult, "differs"), "2025-03-01T10:00:07.000000Z");
  add(run, failed_result("BM=64,BN=64", Status::Timeout, "hung"), "2025-03-01T10:00:08.000000Z");
  const std::string text = write({run});

  const KtCache cache = parse_kt_cache(text, "export");
  EXPECT_FALSE(cache.truncated);
  EXPECT_EQ(cache.device_name, "NVIDIA H200");
  EXPECT_EQ(cache.kernel_name, "gemm");
  EXPECT_EQ(cache.problem_size, (std::vector<std::int64_t>{1024, 2048}));
  EXPECT_EQ(cache.parameter_names(), (std::vector<std::string>{"BM", "BN"}));
  EXPECT_EQ(cache.parameter_values(),
            (std::vector<std::vector<Value>>{{Value(64), Value(128), Value(256), Value(512)}, {Value(32), Value(64)}}));
  EXPECT_EQ(cache.records.size(), 8u);

  write_bytes(path("gemm.json"), text);
  Database db(path("back.db"));
  EXPECT_EQ(import_file(db, path("gemm.json")).new_measurements, 8u);  // detected as a cache
  const auto back = db.runs();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].device.name, "NVIDIA H200");
  EXPECT_EQ(back[0].device.sm_count, 132);  // from cutune's table of GPUs
  std::map<std::string, const Result*> by_config;
  for (const auto& m : back[0].measurements) {
    EXPECT_EQ(m.shape, kShape);
    by_config[m.result.config] = &m.result;
  }
  ASSERT_EQ(by_config.size(), run.measurements.size());
  for (const auto& m : run.measurements) {
    const Result& r = *by_config.at(m.result.config);
    EXPECT_EQ(r.status, m.result.status) << m.result.config;
    if (usable(m.result.status)) {
      EXPECT_EQ(r.median_ms, m.result.median_ms) << m.result.config;
      EXPECT_EQ(r.samples_ms, m.result.samples_ms) << m.result.config;
      expect_same_times(r, m.result);
    }
  }
  EXPECT_EQ(back[0].measurements.front().measured_at, "2025-03-01T10:00:01.000000Z");
}

TEST_F(KtExport, FailuresCarryKernelTunersNames) {
  RunRecord run = run_of("r1", h200_);
  add(run, failed_result("BM=1", Status::CompileError, "log"), "2025-03-01T10:00:01.000000Z");
  add(run, failed_result("BM=2", Status::LaunchError, ""), "2025-03-01T10:00:02.000000Z");
  add(run, failed_result("BM=3", Status::RuntimeError, ""), "2025-03-01T10:00:03.000000Z");
  add(run, failed_result("BM=4", Status::WrongResult, ""), "2025-03-01T10:00:04.000000Z");
  add(run, failed_result("BM=5", Status::Timeout, ""), "2025-03-01T10:00:05.000000Z");
  add(run, timed("BM=6", 2.0, Status::Unverified), "2025-03-01T10:00:06.000000Z");
  add(run, timed("BM=7", 3.0), "2025-03-01T10:00:07.000000Z");
  const Json doc = Json::parse(write({run}));
  const Json& cache = doc["cache"];
  const auto time_of = [&](const char* key) { return cache[key]["time"].dump(); };
  EXPECT_EQ(time_of("1"), "\"CompilationFailedConfig\"");
  EXPECT_EQ(time_of("2"), "\"InvalidConfig\"");
  EXPECT_EQ(time_of("3"), "\"RuntimeFailedConfig\"");
  EXPECT_EQ(time_of("4"), "\"RuntimeFailedConfig\"");  // Kernel Tuner stops at a wrong result or a hang
  EXPECT_EQ(time_of("5"), "\"RuntimeFailedConfig\"");
  EXPECT_EQ(time_of("6"), "2.0");
  EXPECT_EQ(time_of("7"), "3.0");
  // cutune's own status only where Kernel Tuner's verdict would read back as another one.
  for (const char* key : {"1", "2", "3", "7"}) EXPECT_FALSE(cache[key].contains("cutune_status")) << key;
  EXPECT_EQ(cache["4"]["cutune_status"], "wrong_result");
  EXPECT_EQ(cache["5"]["cutune_status"], "timeout");
  EXPECT_EQ(cache["6"]["cutune_status"], "unverified");
  // Kernel Tuner's fields, 0 where unknown (a failure has no verify time), in its timestamp form.
  EXPECT_EQ(cache["7"]["compile_time"], 120.0);
  EXPECT_EQ(cache["7"]["verification_time"], 0.4);
  EXPECT_EQ(cache["7"]["benchmark_time"], 2.5);
  EXPECT_EQ(cache["7"]["framework_time"], 0.75);
  EXPECT_EQ(cache["7"]["strategy_time"], 0.125);
  EXPECT_EQ(cache["1"]["verification_time"], 0);
  EXPECT_EQ(cache["7"]["timestamp"], "2025-03-01 10:00:07.000000+00:00");
  EXPECT_EQ(doc["objective"], "time");
  EXPECT_EQ(doc["problem_size"], Json::parse("[1024, 2048]"));
}

TEST_F(KtExport, KeysAreWhatPythonsStrPrints) {
  RunRecord run = run_of("r1", h200_);
  run.measurements.clear();
  const std::vector<std::pair<std::string, std::string>> values = {
      {"0.5", "0.5"},       {"1e-05", "1e-05"},   {"-3", "-3"},           {"-0.25", "-0.25"},
      {"2.0", "2.0"},       {"1e+16", "1e+16"},   {"1e-04", "0.0001"},    {"1e+05", "100000.0"},
      {"123.456", "123.456"}, {"7", "7"},         {"0.1", "0.1"},         {"1234567890123456.0", "1234567890123456.0"},
      {"-1.5e-07", "-1.5e-07"}, {"fast", "fast"}};
  int second = 0;
  for (const auto& [value, key] : values) {
    add(run, timed("X=" + value + ",Y=-2", 1.0), "2025-03-01T10:00:" + std::to_string(10 + second++) + ".000000Z");
  }
  const Json doc = Json::parse(write({run}));
  for (const auto& [value, key] : values) {
    EXPECT_TRUE(doc["cache"].contains(key + ",-2")) << value << " should be keyed " << key << ",-2";
  }
  // The record's fields have the types whose str() the key is made of.
  EXPECT_TRUE(doc["cache"]["2.0,-2"]["X"].is_number_float());
  EXPECT_TRUE(doc["cache"]["7,-2"]["X"].is_number_integer());
  EXPECT_EQ(doc["cache"]["fast,-2"]["X"], "fast");
  EXPECT_EQ(doc["cache"]["7,-2"]["Y"], -2);
  // tune_params: numbers by value, then text (JSON's form of a number may differ from str()'s: Python reads
  // 1.234567890123456e+15 as the float whose str() is 1234567890123456.0).
  EXPECT_EQ(doc["tune_params"]["X"].dump(),
            "[-3,-0.25,-1.5e-07,1e-05,0.0001,0.1,0.5,2.0,7,123.456,100000.0,1.234567890123456e+15,1e+16,\"fast\"]");
  EXPECT_EQ(doc["tune_params"]["Y"].dump(), "[-2]");
  EXPECT_EQ(doc["tune_params_keys"].dump(), "[\"X\",\"Y\"]");
}

TEST_F(KtExport, ConfigurationMeasuredTwiceKeepsTheNewestOk) {
  RunRecord first = run_of("r1", h200_);
  add(first, timed("BM=64", 2.0), "2025-03-01T10:00:01.000000Z");
  add(first, timed("BM=128", 1.0), "2025-03-01T10:00:02.000000Z");
  add(first, failed_result("BM=256", Status::CompileError, ""), "2025-03-01T10:00:03.000000Z");
  add(first, timed("BM=512", 4.0, Status::Unverified), "2025-03-01T10:00:04.000000Z");
  RunRecord second = run_of("r2", h200_);
  add(second, timed("BM=64", 1.5), "2025-03-02T10:00:01.000000Z");  // re-timed: the newer counts
  add(second, failed_result("BM=128", Status::RuntimeError, ""), "2025-03-02T10:00:02.000000Z");  // ok stays
  add(second, failed_result("BM=256", Status::LaunchError, ""), "2025-03-02T10:00:03.000000Z");  // newest failure
  add(second, timed("BM=512", 3.0), "2025-03-01T09:00:00.000000Z");  // older, but verified
  add(second, timed("BM=64", 1.75), "2025-03-01T12:00:00.000000Z");  // ok, but older than 1.5

  const Json doc = Json::parse(write({first, second}));
  const Json& cache = doc["cache"];
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache["64"]["time"], 1.5);
  EXPECT_EQ(cache["128"]["time"], 1.0);
  EXPECT_EQ(cache["256"]["time"], "InvalidConfig");
  EXPECT_EQ(cache["512"]["time"], 3.0);
  EXPECT_FALSE(cache["512"].contains("cutune_status"));
}

TEST_F(KtExport, SeveralGroupsAreRefusedWithTheirList) {
  const std::string message = error_of([&] { write(three_groups()); });
  EXPECT_NE(message.find("one kernel on one device at one shape and L2 convention, and 3 are selected: "
                         "gemm (version 1111111111111111) on NVIDIA H200 at 1024x2048, flush read: 1 measurement; "
                         "gemm (version 1111111111111111) on NVIDIA H200 at 4096x4096, flush read: 1 measurement; "
                         "gemm (version 1111111111111111) on NVIDIA L4 at 1024x2048, flush none: 1 measurement; "
                         "pick one with --kernel, --device, --shape and --flush"),
            std::string::npos)
      << message;
  EXPECT_NE(error_of([] { write({}); }).find("holds no measurements"), std::string::npos);
}

TEST_F(KtExport, SelectionPicksOneGroupForEveryFormat) {
  {
    Database db(path("all.db"));
    db.add_runs(three_groups());
  }
  Database db(path("all.db"));
  const auto exported = [&](const std::string& format, const ExportSelection& selection) {
    std::ostringstream out;
    export_runs(db, format, out, selection);
    return out.str();
  };

  ExportSelection big;
  big.shape = "4096x4096";
  Json doc = Json::parse(exported("kt-cache", big));
  EXPECT_EQ(doc["problem_size"], Json::parse("[4096, 4096]"));
  EXPECT_EQ(doc["cache"]["64"]["time"], 3.0);

  ExportSelection l4_only;
  l4_only.device = " NVIDIA  L4";  // white space is normalised, as stored names are
  EXPECT_EQ(Json::parse(exported("kt-cache", l4_only))["device_name"], "NVIDIA L4");
  ExportSelection none_flush;
  none_flush.flush = L2Flush::None;
  none_flush.kernel = kGemm.hash;  // a version selects as its name does
  EXPECT_EQ(Json::parse(exported("kt-cache", none_flush))["cache"]["64"]["time"], 2.0);

  // The other formats write the selection too.
  ExportSelection h200_small;
  h200_small.device = "NVIDIA H200";
  h200_small.shape = kShape;
  doc = Json::parse(exported("json", h200_small));
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["measurements"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["measurements"][0]["shape"], kShape);
  const std::string csv = exported("csv", none_flush);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << csv;  // header and the L4's row
  EXPECT_EQ(Json::parse(exported("t4", h200_small))["results"].size(), 1u);

  // A selection of nothing names what there is.
  ExportSelection nothing;
  nothing.kernel = "transpose";
  nothing.flush = L2Flush::Write;
  const std::string message = error_of([&] { exported("json", nothing); });
  EXPECT_NE(message.find("nothing matches kernel transpose, flush write; the database holds gemm (version "
                         "1111111111111111) on NVIDIA H200 at 1024x2048, flush read: 1 measurement; "),
            std::string::npos)
      << message;
  ExportSelection partly;
  partly.device = "H200";  // a whole name, not a part of one
  EXPECT_NE(error_of([&] { exported("json", partly); }).find("nothing matches device H200"), std::string::npos);
}

TEST_F(KtExport, ReaderTakesKernelTuner15FailureRecords) {
  // Kernel Tuner 1.5 writes a failure as "__error__" without a time.
  const KtCache cache = parse_kt_cache(R"({"device_name": "A100", "kernel_name": "k", "problem_size": 4,
    "tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "objective": "time", "cache": {
    "1": {"x": 1, "__error__": "CompilationFailedConfig", "compile_time": 10.0},
    "2": {"x": 2, "time": 0.5, "times": [0.5]}}})",
                                       "kt15");
  ASSERT_EQ(cache.records.size(), 2u);
  EXPECT_EQ(cache.records[0].failure, "CompilationFailedConfig");
  EXPECT_FALSE(cache.records[0].time_ms);
  EXPECT_EQ(cache.records[1].time_ms, 0.5);
}

}  // namespace
}  // namespace cutune::testing
