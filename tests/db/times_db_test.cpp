// Host tests of times in the database: each result's verify, benchmark, framework and search times, each run's phase
// times, both through export, import and merge, a version-5 file migrated with them unknown, bad ones refused.
#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "cutune/exchange.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

using Json = nlohmann::json;

const KernelIdentity kKernel{"transpose", "0123456789abcdef"};
const std::string kShape = "1024x1024";

PhaseTimes some_times() { return synthetic_run_times(12.5); }

class TimesDbTest : public TempDirTest {
 protected:
  // One finished run with an Ok result (every time known) and a failure (some unknown), and one run under way.
  void fill(Database& db) {
    const auto run = db.begin_run(device_, kKernel, "tune transpose");
    db.record(run, kShape, ok_result("TILE=32", 0.5));
    Result failed = failed_result("TILE=64", Status::WrongResult, "max error 1");
    failed.verify_ms = 0.25;
    failed.benchmark_ms = 0.0;  // never timed
    failed.search_ms = std::nan("");
    db.record(run, kShape, failed);
    db.finish_run(run, some_times());
    db.record(db.begin_run(device_, kKernel, "tune transpose --budget 1"), kShape, ok_result("TILE=16", 0.75));
  }
  std::string exported(Database& db, std::string_view format) {
    std::ostringstream out;
    export_runs(db, format, out);
    return out.str();
  }

  DeviceIdentity device_ = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
};

TEST_F(TimesDbTest, EachResultsTimesAndEachRunsPhasesAreStored) {
  Database db(path("t.db"));
  fill(db);
  const auto results = db.results(device_, kKernel, kShape);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_DOUBLE_EQ(results[0].verify_ms, 0.4);
  EXPECT_DOUBLE_EQ(results[0].benchmark_ms, 2.5);
  EXPECT_DOUBLE_EQ(results[0].framework_ms, 0.75);
  EXPECT_DOUBLE_EQ(results[0].search_ms, 0.125);
  EXPECT_EQ(results[2].config, "TILE=64");
  EXPECT_DOUBLE_EQ(results[2].verify_ms, 0.25);
  EXPECT_EQ(results[2].benchmark_ms, 0.0);
  EXPECT_TRUE(std::isnan(results[2].search_ms));  // unknown stays unknown
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_TRUE(runs[0].times.has_value());
  expect_same_times(*runs[0].times, some_times());
  EXPECT_FALSE(runs[1].times.has_value());  // still under way (or interrupted)
  // A run's times are stored once, when it ends.
  EXPECT_THROW(db.finish_run(1, some_times()), DatabaseError);
}

TEST_F(TimesDbTest, AVersion5FileKeepsEverythingWithTheNewTimesUnknown) {
  std::vector<Result> before;
  {
    Database db(path("old.db"));
    fill(db);
    before = db.results(device_, kKernel, kShape);
  }
  downgrade_to_version5(path("old.db"));
  // Read for a merge, the file stays as it was; opened, it is migrated in place.
  merge_databases({path("old.db")}, path("merged.db"));
  {
    SQLite::Database raw(path("old.db").string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), "5");
  }
  for (const char* file : {"merged.db", "old.db"}) {
    Database db(path(file));
    const auto after = db.results(device_, kKernel, kShape);
    ASSERT_EQ(after.size(), before.size()) << file;
    for (std::size_t i = 0; i < after.size(); ++i) {
      EXPECT_EQ(after[i].config, before[i].config);
      EXPECT_EQ(after[i].status, before[i].status);
      EXPECT_EQ(after[i].samples_ms, before[i].samples_ms);
      EXPECT_DOUBLE_EQ(after[i].compile_ms, before[i].compile_ms);
      EXPECT_EQ(after[i].blocks_per_sm, before[i].blocks_per_sm);
      for (const double unknown : {after[i].verify_ms, after[i].benchmark_ms, after[i].framework_ms,
                                   after[i].search_ms}) {
        EXPECT_TRUE(std::isnan(unknown)) << file << " " << after[i].config;
      }
    }
    for (const auto& run : db.runs()) EXPECT_FALSE(run.times.has_value()) << file;
  }
  SQLite::Database raw(path("old.db").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
            std::to_string(Database::kSchemaVersion));
  // The migrated file takes runs with times like any other.
  Database db(path("old.db"));
  const auto run = db.begin_run(device_, kKernel, "tune transpose");
  db.record(run, "2048x2048", ok_result("TILE=32", 2.0));
  db.finish_run(run, some_times());
  EXPECT_DOUBLE_EQ(db.results(device_, kKernel, "2048x2048").at(0).benchmark_ms, 2.5);
  ASSERT_TRUE(db.runs().back().times.has_value());
}

TEST_F(TimesDbTest, JsonExportAndImportKeepThem) {
  Database db(path("t.db"));
  fill(db);
  write_bytes(path("runs.json"), exported(db, "json"));
  Database copy(path("copy.db"));
  import_file(copy, path("runs.json"));
  const auto a = copy.runs(), b = db.runs();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].times.has_value(), b[i].times.has_value());
    if (a[i].times) expect_same_times(*a[i].times, *b[i].times);
    ASSERT_EQ(a[i].measurements.size(), b[i].measurements.size());
    for (std::size_t m = 0; m < a[i].measurements.size(); ++m) {
      expect_same_times(a[i].measurements[m].result, b[i].measurements[m].result);
    }
  }
  // A document of an older cutune has none of them: unknown.
  Json doc = Json::parse(read_bytes(path("runs.json")));
  for (Json& run : doc["runs"]) {
    run.erase("times");
    for (Json& m : run["measurements"])
      for (const char* key : {"verify_ms", "benchmark_ms", "framework_ms", "search_ms"}) m.erase(key);
    run["uid"] = run["uid"].get<std::string>() + "-old";
  }
  write_bytes(path("old.json"), doc.dump());
  Database old(path("old.db"));
  import_file(old, path("old.json"));
  EXPECT_FALSE(old.runs()[0].times.has_value());
  EXPECT_TRUE(std::isnan(old.results(device_, kKernel, kShape).at(0).verify_ms));
  // The csv carries them as columns, unknown ones empty.
  const std::string csv = exported(db, "csv");
  EXPECT_NE(csv.find(",verify_ms,benchmark_ms,framework_ms,search_ms,samples_ms,measured_at,flush,message\n"),
            std::string::npos) << csv;
  EXPECT_NE(csv.find(",0.4,2.5,0.75,0.125,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0.25,0,0,,,"), std::string::npos) << csv;  // no search time, no samples
  EXPECT_NE(csv.find(",read,max error 1\n"), std::string::npos) << csv;
}

// A copy taken while a run was under way has no times yet; merging the finished run's copy brings them.
TEST_F(TimesDbTest, MergingTheFinishedRunFillsInItsTimes) {
  Database db(path("t.db"));
  const auto run = db.begin_run(device_, kKernel, "tune transpose");
  db.record(run, kShape, ok_result("TILE=32", 0.5));
  Database early(path("early.db"));
  early.add_runs(db.runs());
  db.finish_run(run, some_times());
  const ImportSummary s = early.add_runs(db.runs());
  EXPECT_EQ(s.new_runs, 0u);
  ASSERT_TRUE(early.runs().at(0).times.has_value());
  expect_same_times(*early.runs()[0].times, some_times());
}

TEST_F(TimesDbTest, BadTimesInAFileAreRefusedWithOneClearError) {
  Database db(path("t.db"));
  fill(db);
  const Json good = Json::parse(exported(db, "json"));
  const auto refused = [&](const std::function<void(Json&)>& spoil) {
    Json doc = good;
    spoil(doc);
    write_bytes(path("bad.json"), doc.dump());
    Database target(path("target.db"));
    const std::string message = error_of([&] { import_file(target, path("bad.json")); });
    EXPECT_EQ(target.stats().runs, 0);
    return message;
  };
  std::string m = refused([](Json& d) { d["runs"][0]["times"]["store_s"] = -1.0; });
  EXPECT_NE(m.find("store_s"), std::string::npos) << m;
  m = refused([](Json& d) { d["runs"][0]["times"]["wall_s"] = "long"; });
  EXPECT_NE(m.find("\"wall_s\" that is not a number"), std::string::npos) << m;
  m = refused([](Json& d) { d["runs"][0]["times"].erase("other_s"); });
  EXPECT_NE(m.find("lacks \"other_s\""), std::string::npos) << m;
  m = refused([](Json& d) { d["runs"][0]["measurements"][0]["benchmark_ms"] = -2.0; });
  EXPECT_NE(m.find("invalid time"), std::string::npos) << m;
  m = refused([](Json& d) { d["runs"][0]["measurements"][0]["verify_ms"] = Json::array(); });
  EXPECT_NE(m.find("\"verify_ms\" that is not a number"), std::string::npos) << m;
}

}  // namespace
}  // namespace cutune::testing
