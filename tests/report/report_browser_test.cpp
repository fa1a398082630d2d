// The report in a real browser: headless Chromium draws every plot of a small database's page without a script
// error, each with the marks its data calls for, and the database's hostile text stays text.
#include <gtest/gtest.h>

#include <map>

#include "browser_support.hpp"
#include "cutune/report.hpp"
#include "report_test_support.hpp"

namespace cutune::testing {
namespace {

using Json = nlohmann::json;

class ReportBrowserTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const auto found = find_chromium();
    if (!found) GTEST_SKIP() << "no Chromium on PATH (Debian: apt-get install chromium; or set CUTUNE_CHROMIUM)";
    chromium_ = *found;
  }

  // Renders the page and returns the marks each view drew, after checking that the page finished without errors.
  std::map<std::string, Json> render(const fs::path& page) {
    // CUTUNE_REPORT_SCREENSHOTS=DIR keeps each page and a PNG of it for a person to look at.
    const char* shots = std::getenv("CUTUNE_REPORT_SCREENSHOTS");
    const fs::path screenshot = shots ? fs::path(shots) / (page.stem().string() + ".png") : fs::path();
    if (shots) fs::copy_file(page, fs::path(shots) / page.filename(), fs::copy_options::overwrite_existing);
    const std::string dom = render_page(chromium_, page, dir_, 20000, screenshot);
    EXPECT_FALSE(dom.empty()) << "Chromium failed; see " << (dir_ / "chromium.log");
    dom_ = dom;
    const Json status = page_status(dom);
    EXPECT_TRUE(status.is_object()) << dom.substr(0, 2000);
    if (!status.is_object()) return {};
    EXPECT_EQ(status.value("done", false), true) << status.dump();
    EXPECT_EQ(status["errors"], Json::array()) << status.dump();
    std::map<std::string, Json> views;
    for (const Json& v : status["views"]) views[v["id"].get<std::string>()] = v["marks"];
    return views;
  }

  std::string chromium_;
  std::string dom_;
};

TEST_F(ReportBrowserTest, EveryPlotDrawsItsMarks) {
  const ReportFixture f = write_report_database(path("tune.db"));
  {
    Database db(path("tune.db"));
    write_report_file(db, {}, path("report.html"));
  }
  auto views = render(path("report.html"));
  // The H100's 1024x1024 group (g2, as ordered by the report) has every kind of plot.
  ASSERT_TRUE(views.count("g2-convergence")) << dom_.size();
  EXPECT_EQ(views["g2-convergence"]["curves"], f.h100_small_runs);
  ASSERT_TRUE(views.count("g2-distribution"));
  EXPECT_GT(views["g2-distribution"].value("bars", 0), 1);
  EXPECT_EQ(views["g2-distribution"]["best"], 1);
  ASSERT_TRUE(views.count("g2-parameters"));
  EXPECT_EQ(views["g2-parameters"]["panels"], f.gemm_parameters);
  EXPECT_EQ(views["g2-parameters"]["boxes"], f.gemm_values);
  EXPECT_EQ(views["g2-parameters"]["minima"], f.gemm_values);
  ASSERT_TRUE(views.count("g2-resources"));
  EXPECT_EQ(views["g2-resources"]["occupancy-points"], f.h100_small_ok);
  EXPECT_EQ(views["g2-resources"]["waves-points"], f.h100_small_ok);
  ASSERT_TRUE(views.count("g2-failures"));
  EXPECT_EQ(views["g2-failures"]["status-bars"], f.h100_small_failed_statuses);
  // The A100's group has no resources: no scatter; the kernel across devices and shapes.
  EXPECT_FALSE(views.count("g1-resources"));
  EXPECT_TRUE(views.count("g1-convergence"));
  ASSERT_TRUE(views.count("across-gemm-read-bests"));
  EXPECT_EQ(views["across-gemm-read-bests"]["best-points"], f.gemm_groups);
  ASSERT_TRUE(views.count("across-gemm-read-portability"));
  EXPECT_GE(views["across-gemm-read-portability"].value("portability-cells", 0), static_cast<int>(f.gemm_groups));
  // Every view drew something in each of its named marks.
  for (const auto& [id, marks] : views) {
    for (const auto& [mark, count] : marks.items()) EXPECT_GT(count.get<int>(), 0) << id << " " << mark;
  }
  // The hostile message is on the page as text, and ran nothing.
  EXPECT_NE(dom_.find("&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(dom_.find("<title>pwned"), std::string::npos);
  EXPECT_NE(dom_.find("<title>cutune report of tune.db</title>"), std::string::npos);
}

TEST_F(ReportBrowserTest, ReplayCurvesDraw) {
  ReplayResult bayes, random;
  bayes.strategy = "bayes";
  random.strategy = "random";
  for (ReplayResult* r : {&bayes, &random}) {
    r->space_size = 1000;
    r->optimum_ms = 0.5;
    r->seeds = 20;
  }
  bayes.budgets = {{25, 1.3, 1.6}, {50, 1.1, 1.4}, {100, 1.01, 1.2}};
  random.budgets = {{25, 1.6, 1.6}, {50, 1.45, 1.4}, {100, 1.2, 1.2}};
  write_replay_report_file({bayes, random}, {"replay of a recorded space", "space.json"}, path("replay.html"));
  auto views = render(path("replay.html"));
  ASSERT_TRUE(views.count("replay-convergence"));
  EXPECT_EQ(views["replay-convergence"]["strategy-curves"], 3);  // two strategies and random sampling
  EXPECT_EQ(views["replay-convergence"]["strategy-points"], 9);
}

}  // namespace
}  // namespace cutune::testing
