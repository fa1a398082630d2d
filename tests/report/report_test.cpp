// Host tests of the HTML report: what it says about a database, bad input refused before anything is written,
// and database text kept from breaking out of the page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "cutune/error.hpp"
#include "cutune/report.hpp"
#include "report_test_support.hpp"

namespace cutune::testing {
namespace {

using Json = nlohmann::json;

std::string report_of(Database& db, const ReportOptions& options = {}) {
  std::ostringstream out;
  write_report(db, options, out);
  return out.str();
}

// The page's data, as the browser will parse it.
Json page_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"cutune-data\">";
  const auto from = page.find(open);
  EXPECT_NE(from, std::string::npos);
  const auto to = page.find("</script>", from);
  return Json::parse(page.substr(from + open.size(), to - from - open.size()));
}

class ReportTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fixture_ = write_report_database(path("tune.db"));
  }
  ReportFixture fixture_;
};

TEST_F(ReportTest, GroupsCarryBestResourcesAndAggregates) {
  Database db(path("tune.db"));
  const Json data = page_data(report_of(db));
  ASSERT_EQ(data["groups"].size(), 4u);  // copy, then gemm's three (small shape first, A100 before H100)
  EXPECT_EQ(data["groups"][0]["kernel"], "copy");
  const Json& g = data["groups"][2];
  EXPECT_EQ(g["shape"], "1024x1024");
  EXPECT_EQ(g["device"]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g["counts"]["configurations"], 12);
  EXPECT_EQ(g["counts"]["ok"], fixture_.h100_small_ok);
  EXPECT_EQ(g["counts"]["runs"], 2);
  EXPECT_EQ(g["parameters"], (Json{"BM", "BN", "TM"}));
  // The best: waves and occupancy derived from its resources on 132 SMs of compute capability 9.0.
  const Json& best = g["fastest"][0];
  EXPECT_EQ(g["fastest"].size(), 10u);
  EXPECT_LE(best["median_ms"].get<double>(), g["fastest"][1]["median_ms"].get<double>());
  const double waves = best["blocks"].get<double>() / (132.0 * best["blocks_per_sm"].get<double>());
  EXPECT_DOUBLE_EQ(best["waves"].get<double>(), waves);
  const int warps = (best["threads_per_block"].get<int>() + 31) / 32;
  EXPECT_DOUBLE_EQ(best["occupancy"].get<double>(), warps * best["blocks_per_sm"].get<double>() / 64.0);
  EXPECT_DOUBLE_EQ(best["fraction_of_peak"].get<double>(), best["metric"].get<double>() / 60000.0);
  // Every configuration that ran counts once in the histogram and in each parameter's values.
  std::size_t in_bins = 0;
  for (const Json& b : g["histogram"]) in_bins += b["n"].get<std::size_t>();
  EXPECT_EQ(in_bins, fixture_.h100_small_ok);
  ASSERT_EQ(g["by_parameter"].size(), 3u);
  EXPECT_EQ(g["by_parameter"][0]["values"].size(), 3u);
  EXPECT_EQ(g["by_parameter"][0]["values"][2]["value"], "128");  // numeric order, not text order
  EXPECT_EQ(g["by_parameter"][0]["values"][2]["n"], 4);
  EXPECT_EQ(g["by_parameter"][0]["values"][2]["ok"], 2);
  EXPECT_EQ(g["resources"]["shown"], fixture_.h100_small_ok);
  // Convergence: per run, steps down to its best.
  ASSERT_EQ(g["convergence"].size(), 2u);
  for (const Json& run : g["convergence"]) {
    double last = 1e300;
    for (const Json& p : run["points"]) {
      EXPECT_LE(p[1].get<double>(), last);
      last = p[1].get<double>();
    }
    EXPECT_EQ(run["points"].back()[0], run["evaluations"]);
  }
  // Failures by status, with their messages.
  EXPECT_EQ(g["failures"]["by_status"].size(), fixture_.h100_small_failed_statuses);
  EXPECT_EQ(g["failures"]["messages"].size(), 2u);
  // The A100's results have no resources: no scatter, and the page says so.
  EXPECT_TRUE(data["groups"][1]["resources"].is_null());
  // Where each run's time went, and the total over the runs that kept it: the two runs of this group.
  ASSERT_EQ(g["clock"].size(), 2u);
  EXPECT_DOUBLE_EQ(g["clock"][0]["wall_s"].get<double>(), fixture_.first_times.wall_s);
  EXPECT_NE(g["clock"][0]["label"].get<std::string>().find("--budget 6"), std::string::npos);
  double phases = 0.0;
  for (const Json& p : g["clock"][1]["phases"]) phases += p["s"].get<double>();
  EXPECT_DOUBLE_EQ(phases, fixture_.second_times.wall_s);
  EXPECT_EQ(g["clock"][1]["phases"][1]["name"], "waiting for compiles");
  EXPECT_DOUBLE_EQ(g["clock"][1]["phases"][1]["s"].get<double>(), fixture_.second_times.compile_wait_s);
  EXPECT_DOUBLE_EQ(g["clock"][0]["verify_s"].get<double>(), 0.0004 * 5);  // five Ok results of 0.4 ms each
  EXPECT_TRUE(data["groups"][1]["clock"].empty());
  const Json& total = data["clock"];
  EXPECT_EQ(total["runs"], 2);
  EXPECT_DOUBLE_EQ(total["wall_s"].get<double>(), fixture_.first_times.wall_s + fixture_.second_times.wall_s);
  EXPECT_DOUBLE_EQ(total["compile_cpu_s"].get<double>(),
                   fixture_.first_times.compile_cpu_s + fixture_.second_times.compile_cpu_s);
  // Each result's own times.
  EXPECT_DOUBLE_EQ(best["verify_ms"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(best["benchmark_ms"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(best["search_ms"].get<double>(), 0.125);
  // Across devices and shapes: gemm only (copy has one group); three bests, portability where measured.
  ASSERT_EQ(data["across"].size(), 1u);
  EXPECT_EQ(data["across"][0]["bests"].size(), fixture_.gemm_groups);
  for (const Json& cell : data["across"][0]["portability"]) EXPECT_GE(cell["ratio"].get<double>(), 1.0);
}

TEST_F(ReportTest, NarrowedByKernelShapeAndGpu) {
  Database db(path("tune.db"));
  Json data = page_data(report_of(db, {.kernel = "gemm", .shape = "1024x1024", .gpu = "NVIDIA  H100 80GB HBM3"}));
  ASSERT_EQ(data["groups"].size(), 1u);
  EXPECT_EQ(data["groups"][0]["counts"]["configurations"], 12);
  EXPECT_EQ(data["filters"]["kernel"], "gemm");
  data = page_data(report_of(db, {.kernel = "gemm", .shape = "1024x1024"}));
  EXPECT_EQ(data["groups"].size(), 2u);
  EXPECT_EQ(data["across"][0]["bests"].size(), 2u);
}

TEST_F(ReportTest, UnknownKernelShapeOrGpuNamesWhatThereIs) {
  Database db(path("tune.db"));
  EXPECT_EQ(error_of([&] { report_of(db, {.kernel = "sgemm"}); }),
            "database '" + path("tune.db").string() + "' holds no results of kernel 'sgemm' (it holds copy, gemm)");
  EXPECT_EQ(error_of([&] { report_of(db, {.kernel = "gemm", .shape = "7x7"}); }),
            "database '" + path("tune.db").string() +
                "' holds no results at shape '7x7' (it holds 1024x1024, 4096x4096)");
  EXPECT_EQ(error_of([&] { report_of(db, {.gpu = "NVIDIA B200"}); }),
            "database '" + path("tune.db").string() +
                "' holds no results on GPU 'NVIDIA B200' (it holds NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3)");
  Database empty(path("empty.db"));
  EXPECT_EQ(error_of([&] { report_of(empty); }), "database '" + path("empty.db").string() + "' holds no results");
}

TEST_F(ReportTest, FileIsWrittenWholeOrNotAtAll) {
  Database db(path("tune.db"));
  write_report_file(db, {}, path("report.html"));
  const std::string page = read_bytes(path("report.html"));
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  // A failure leaves an existing file as it was, and creates none.
  EXPECT_THROW(write_report_file(db, {.kernel = "nope"}, path("report.html")), InputError);
  EXPECT_EQ(read_bytes(path("report.html")), page);
  EXPECT_THROW(write_report_file(db, {.kernel = "nope"}, path("other.html")), InputError);
  EXPECT_FALSE(fs::exists(path("other.html")));
  EXPECT_EQ(error_of([&] { write_report_file(db, {}, path("missing/report.html")); }),
            "cannot write '" + path("missing/report.html").string() + "': directory '" + path("missing").string() +
                "' does not exist");
  EXPECT_EQ(error_of([&] { write_report_file(db, {}, dir_); }), "cannot write '" + dir_.string() + "': it is a directory");
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST_F(ReportTest, DatabaseTextCannotEndTheScriptOrFetchAnything) {
  Database db(path("tune.db"));
  const std::string page = report_of(db);
  // The hostile message is in the data, escaped: no end tag but the page's own three.
  std::size_t end_tags = 0;
  for (auto at = page.find("</script"); at != std::string::npos; at = page.find("</script", at + 1)) ++end_tags;
  EXPECT_EQ(end_tags, 3u);  // data, Vega, the page's script
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script\\u003e\\u003cscript\\u003edocument.title='pwned'"), std::string::npos);
  Json messages = page_data(page)["groups"][2]["failures"]["messages"];
  bool found = false;
  for (const Json& m : messages) found = found || m["message"] == kHostileMessage;
  EXPECT_TRUE(found);
  // Offline: outside the data, no element loads anything, and Vega's source-map comments are gone.
  const std::string open = "<script type=\"application/json\" id=\"cutune-data\">";
  const auto data_from = page.find(open);
  const std::string markup = page.substr(0, data_from) + page.substr(page.find("</script>", data_from));
  for (const char* fetch : {" src=", "<link", "sourceMappingURL", "@import"}) {
    EXPECT_EQ(markup.find(fetch), std::string::npos) << fetch;
  }
}

TEST_F(ReportTest, InvalidUtf8InAMessageDoesNotFailTheReport) {
  {
    Database db(path("tune.db"));
    const auto run = db.begin_run(synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132), kReportCopy, "tune");
    db.record(run, "65536", failed_result("VEC=2", Status::CompileError, "bad byte \xff here"));
  }
  Database db(path("tune.db"));
  const Json data = page_data(report_of(db, {.kernel = "copy"}));
  EXPECT_EQ(data["groups"][0]["failures"]["messages"][0]["message"], "bad byte \xef\xbf\xbd here");
}

TEST(ReplayReport, CarriesEveryStrategysCurve) {
  ReplayResult r;
  r.strategy = "bayes";
  r.space_size = 100;
  r.optimum_ms = 1.0;
  r.seeds = 10;
  r.budgets = {{25, 1.2, 1.5}, {50, 1.05, std::nullopt}};
  std::ostringstream out;
  write_replay_report({r, r}, {"replay of x", "x.json"}, out);
  const Json data = page_data(out.str());
  EXPECT_EQ(data["kind"], "replay");
  ASSERT_EQ(data["strategies"].size(), 2u);
  EXPECT_EQ(data["strategies"][0]["budgets"][1]["median"], 1.05);
  EXPECT_TRUE(data["strategies"][0]["budgets"][1]["random"].is_null());
  std::ostringstream ignored;
  EXPECT_THROW(write_replay_report({}, {}, ignored), InputError);
}

}  // namespace
}  // namespace cutune::testing
