// Tests of interrupted results in the database: stored and read back, never the best, replaced by the next
// measurement, and carried by the exports (left out of Kernel Tuner caches, which would take them for failures).
#include <map>
#include <optional>
#include <sstream>

#include "cutune/exchange.hpp"
#include "cutune/kt_cache.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

const KernelIdentity kKernel{"transpose", "0123456789abcdef"};
const std::string kShape = "1024x1024";
const std::string kKilled = "the worker died of signal 9 (Killed) from outside, also when tried again on a fresh "
                            "worker: not this configuration's fault; a resume tries it again";

class InterruptedDb : public TempDirTest {
 protected:
  // One run: TILE=16 ok at 2 ms, TILE=32 interrupted.
  void fill(Database& db) {
    const auto run = db.begin_run(device_, kKernel, "tune transpose");
    db.record(run, kShape, ok_result("TILE=16", 2.0));
    db.record(run, kShape, failed_result("TILE=32", Status::Interrupted, kKilled));
  }
  std::map<std::string, Status> current(Database& db) {
    std::map<std::string, Status> out;
    for (const auto& r : db.results(device_, kKernel, kShape)) out[r.config] = r.status;
    return out;
  }
  std::optional<BestConfig> best(Database& db) { return db.best(BestQuery{kKernel.name, kKernel.hash, device_, kShape}); }
  std::string exported(Database& db, std::string_view format) {
    std::ostringstream out;
    export_runs(db, format, out);
    return out.str();
  }

  DeviceIdentity device_ = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
};

TEST_F(InterruptedDb, StatusNameIsPartOfTheFormat) {
  EXPECT_EQ(to_string(Status::Interrupted), "interrupted");
  EXPECT_EQ(status_from_string("interrupted"), Status::Interrupted);
  EXPECT_FALSE(usable(Status::Interrupted));
}

TEST_F(InterruptedDb, IsReadBackNeverTheBestAndReplacedByTheNextMeasurement) {
  Database db(path("db.sqlite"));
  fill(db);
  EXPECT_EQ(current(db), (std::map<std::string, Status>{{"TILE=16", Status::Ok}, {"TILE=32", Status::Interrupted}}));
  const auto results = db.results(device_, kKernel, kShape);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results.back().message, kKilled);
  ASSERT_TRUE(best(db).has_value());
  EXPECT_EQ(best(db)->result.config, "TILE=16");

  // A resume's run measures it: its result is the current one, and may win.
  const auto resume = db.begin_run(device_, kKernel, "tune transpose");
  db.record(resume, kShape, ok_result("TILE=32", 1.0));
  EXPECT_EQ(current(db), (std::map<std::string, Status>{{"TILE=16", Status::Ok}, {"TILE=32", Status::Ok}}));
  ASSERT_TRUE(best(db).has_value());
  EXPECT_EQ(best(db)->result.config, "TILE=32");
}

TEST_F(InterruptedDb, CutunesOwnFormatsKeepItAndKernelTunersCacheLeavesItOut) {
  Database db(path("db.sqlite"));
  fill(db);
  for (const char* format : {"json", "t4"}) {
    write_bytes(path(std::string("out.") + format), exported(db, format));
    Database copy(path(std::string("copy_") + format + ".sqlite"));
    EXPECT_EQ(import_file(copy, path(std::string("out.") + format), format).new_measurements, 2u) << format;
    EXPECT_EQ(current(copy), current(db)) << format;
    for (const auto& r : copy.results(device_, kKernel, kShape)) {
      if (r.status == Status::Interrupted) EXPECT_EQ(r.message, kKilled) << format;
    }
  }
  EXPECT_NE(exported(db, "csv").find(",TILE=32,interrupted,"), std::string::npos) << exported(db, "csv");

  const KtCache cache = parse_kt_cache(exported(db, "kt-cache"), "export");
  ASSERT_EQ(cache.records.size(), 1u);
  EXPECT_EQ(cache.records.front().time_ms, 2.0);
}

}  // namespace
}  // namespace cutune::testing
