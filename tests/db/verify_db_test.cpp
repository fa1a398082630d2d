// Tests of unverified results (tune --verify none) in the database: stored and read back, usable for the best
// configuration after verified ones, in the fallback chain, through T4 and JSON exchange, and a version-4 file migrated.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cutune/database.hpp"
#include "cutune/exchange.hpp"
#include "cutune/report.hpp"
#include "db_test_support.hpp"

namespace cutune {
namespace {

using testing::ok_result;
using testing::synthetic_device;
using testing::downgrade_to_version5;

Result unverified(const std::string& config, double median) {
  Result r = ok_result(config, median);
  r.status = Status::Unverified;
  return r;
}

class UnverifiedDbTest : public testing::TempDirTest {
 protected:
  DeviceIdentity device_ = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  KernelIdentity kernel_{"stencil", "0123456789abcdef"};
  std::string shape_ = "4096x4096";
};

TEST(UnverifiedStatus, NameAndUsability) {
  EXPECT_EQ(to_string(Status::Unverified), "unverified");
  EXPECT_EQ(status_from_string("unverified"), Status::Unverified);
  EXPECT_TRUE(usable(Status::Ok));
  EXPECT_TRUE(usable(Status::Unverified));
  EXPECT_FALSE(usable(Status::WrongResult));
}

TEST_F(UnverifiedDbTest, StoredReadBackAndBestWhenAlone) {
  Database db(path("tune.db"));
  const auto run = db.begin_run(device_, kernel_, "tune --verify none");
  db.record(run, shape_, unverified("T=64", 2.0));
  db.record(run, shape_, unverified("T=32", 1.0));
  db.record(run, shape_, testing::failed_result("T=16", Status::LaunchError, "too many threads"));

  const auto results = db.results(device_, kernel_, shape_);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].config, "T=32");
  EXPECT_EQ(results[0].status, Status::Unverified);
  EXPECT_EQ(results[1].config, "T=64");
  EXPECT_EQ(results[2].status, Status::LaunchError);

  const auto best = db.best({kernel_.name, kernel_.hash, device_, shape_});
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->result.config, "T=32");
  EXPECT_EQ(best->result.status, Status::Unverified);

  const DatabaseStats stats = db.stats();
  EXPECT_EQ(stats.ok, 0);
  EXPECT_EQ(stats.unverified, 2);
  ASSERT_EQ(stats.devices.size(), 1u);
  EXPECT_EQ(stats.devices[0].unverified, 2);
  ASSERT_EQ(stats.kernels.size(), 1u);
  EXPECT_EQ(stats.kernels[0].unverified, 2);
  EXPECT_EQ(stats.kernels[0].configurations, 3);

  // The fallback chain finds it from another shape too.
  const auto near = db.best_with_fallback({kernel_.name, kernel_.hash, device_, "4000x4000"});
  ASSERT_TRUE(near.has_value());
  EXPECT_EQ(near->match, Match::NearestShape);
  EXPECT_EQ(near->result.status, Status::Unverified);
}

TEST_F(UnverifiedDbTest, VerifiedResultsOutrankFasterUnverifiedOnes) {
  Database db(path("tune.db"));
  db.record(db.begin_run(device_, kernel_, "tune"), shape_, ok_result("T=64", 2.0));
  db.record(db.begin_run(device_, kernel_, "tune --verify none"), shape_, unverified("T=32", 1.0));
  const auto best = db.best({kernel_.name, kernel_.hash, device_, shape_});
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->result.config, "T=64");
  EXPECT_EQ(best->result.status, Status::Ok);
  const auto results = db.results(device_, kernel_, shape_);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, Status::Ok);
  EXPECT_EQ(results[1].status, Status::Unverified);
}

TEST_F(UnverifiedDbTest, ExchangeFormatsKeepTheStatus) {
  Database db(path("tune.db"));
  const auto run = db.begin_run(device_, kernel_, "tune --verify none");
  db.record(run, shape_, unverified("T=32", 1.0));
  db.record(run, shape_, ok_result("T=64", 2.0));
  for (const char* format : {"t4", "json"}) {
    std::ostringstream out;
    export_runs(db, format, out);
    if (std::string(format) == "t4") {
      const auto doc = nlohmann::json::parse(out.str());
      for (const auto& r : doc.at("results")) {
        const bool is_unverified = r.at("cutune").at("config") == "T=32";
        EXPECT_EQ(r.at("invalidity"), "correct");  // it ran
        EXPECT_EQ(r.at("correctness"), is_unverified ? 0 : 1) << r.dump();
        EXPECT_EQ(r.at("cutune").contains("status"), is_unverified) << r.dump();
      }
    }
    const std::filesystem::path file = path(std::string("out.") + format + ".json");
    testing::write_bytes(file, out.str());
    Database copy(path(std::string("copy_") + format + ".db"));
    import_file(copy, file, format);
    const auto back = copy.results(device_, kernel_, shape_);
    ASSERT_EQ(back.size(), 2u) << format;
    EXPECT_EQ(back[0].config, "T=64") << format;  // verified first
    EXPECT_EQ(back[0].status, Status::Ok) << format;
    EXPECT_EQ(back[1].status, Status::Unverified) << format;
  }
}

TEST_F(UnverifiedDbTest, TheReportCountsAndMarksThem) {
  Database db(path("tune.db"));
  const auto run = db.begin_run(device_, kernel_, "tune --verify none");
  db.record(run, shape_, unverified("T=32", 1.0));
  db.record(db.begin_run(device_, kernel_, "tune"), shape_, ok_result("T=64", 2.0));
  db.record(run, shape_, testing::failed_result("T=16", Status::WrongResult, "1 of 4 elements differ"));
  std::ostringstream page;
  write_report(db, {}, page);
  const std::string open = "<script type=\"application/json\" id=\"cutune-data\">";
  const std::string text = page.str();
  const auto from = text.find(open) + open.size();
  const auto data = nlohmann::json::parse(text.substr(from, text.find("</script>", from) - from));
  ASSERT_EQ(data.at("groups").size(), 1u);
  const auto& g = data["groups"][0];
  EXPECT_EQ(g["counts"]["ok"], 1);
  EXPECT_EQ(g["counts"]["unverified"], 1);
  EXPECT_EQ(g["counts"]["failed"], 1);
  ASSERT_EQ(g["fastest"].size(), 2u);
  EXPECT_EQ(g["fastest"][0]["config"], "T=64");  // verified first, though slower
  EXPECT_EQ(g["fastest"][0]["unverified"], false);
  EXPECT_EQ(g["fastest"][1]["unverified"], true);
}

TEST_F(UnverifiedDbTest, AVersion4FileIsMigrated) {
  {
    Database db(path("old.db"));
    db.record(db.begin_run(device_, kernel_, "tune"), shape_, ok_result("T=64", 2.0));
  }
  downgrade_to_version5(path("old.db"));
  {
    // As version 4 left it: results_best over 'ok' only.
    SQLite::Database raw(path("old.db").string(), SQLite::OPEN_READWRITE);
    raw.exec("DROP INDEX results_best");
    raw.exec("CREATE INDEX results_best ON results(device_id, kernel_id, flush, shape, median_ms, config) "
             "WHERE current = 1 AND status = 'ok'");
    raw.exec("UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  }
  Database db(path("old.db"));
  db.record(db.begin_run(device_, kernel_, "tune --verify none"), "1024x1024", unverified("T=32", 1.0));
  const auto best = db.best({kernel_.name, kernel_.hash, device_, "1024x1024"});
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->result.status, Status::Unverified);
  SQLite::Database raw(path("old.db").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), std::to_string(Database::kSchemaVersion));
  EXPECT_NE(raw.execAndGet("SELECT sql FROM sqlite_master WHERE name = 'results_best'").getString().find("unverified"),
            std::string::npos);
}

}  // namespace
}  // namespace cutune
