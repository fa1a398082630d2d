// The report at scale (no GPU needed): a database of 100,000 results from the shared Kernel Tuner caches imported
// under several shapes, then the time `tune report` takes to write its page and Chromium takes to draw it.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cutune/database.hpp"

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string tune;       // the tune program; default: beside this program's folder
  std::string caches = "/work/shared/external/caches";
  std::size_t results = 100'000;
  std::string work;       // default: a fresh folder under the temporary directory
  std::string chromium = "chromium";
  int runs = 3;
  bool keep = false;
};

std::string quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command, returns its exit status and the wall seconds it took.
std::pair<int, double> run(const std::string& command) {
  const auto start = Clock::now();
  const int status = std::system(command.c_str());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, seconds};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2.0;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The status the page wrote into <pre id="cutune-status"> (its serialiser escapes &, < and > in text).
nlohmann::json page_status(const std::string& dom) {
  const std::string open = "<pre id=\"cutune-status\">";
  const auto from = dom.find(open);
  if (from == std::string::npos) return nullptr;
  std::string text = dom.substr(from + open.size(), dom.find("</pre>", from) - from - open.size());
  for (const auto& [entity, c] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1)) text.replace(at, entity.size(), c);
  }
  return nlohmann::json::parse(text, nullptr, false);
}

// Imports every cache under a new shape per round until the database holds `target` measurements.
std::int64_t build_database(const Options& o, const fs::path& db) {
  std::vector<fs::path> caches;
  for (const auto& entry : fs::recursive_directory_iterator(o.caches)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && (name.ends_with(".json.gz") || name.ends_with(".json"))) caches.push_back(entry.path());
  }
  std::sort(caches.begin(), caches.end());
  if (caches.empty()) throw std::runtime_error("no Kernel Tuner caches under " + o.caches);
  std::int64_t held = 0;
  for (int round = 0; held < static_cast<std::int64_t>(o.results); ++round) {
    const std::string shape = fmt::format("{}x4096", 4096 << round);
    for (const fs::path& cache : caches) {
      if (held >= static_cast<std::int64_t>(o.results)) break;
      // A cache that names no device (an AMD GPU's) is filed under its file's name.
      std::string command = quote(o.tune) + " db import " + quote(cache.string()) + " --db " + quote(db.string()) +
                            " --shape " + shape;
      auto [code, seconds] = run(command + " >/dev/null 2>&1");
      if (code != 0) {
        std::tie(code, seconds) = run(command + " --device " + quote(cache.parent_path().filename().string() + "/" +
                                                                     cache.stem().stem().string()) + " >/dev/null");
      }
      if (code != 0) throw std::runtime_error("importing " + cache.string() + " failed");
      held = cutune::Database(db).stats().measurements;
      fmt::print("imported {} at {}: {:.2f} s, {} measurements in all\n", cache.string(), shape, seconds, held);
    }
  }
  return held;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"report_bench: time `tune report` and Chromium on a database of imported Kernel Tuner caches"};
  app.add_option("--tune", o.tune, "the tune program (default: the one of this build)");
  app.add_option("--caches", o.caches, "folder of Kernel Tuner cache files")->capture_default_str();
  app.add_option("--results", o.results, "measurements the database is filled to at least")->capture_default_str();
  app.add_option("--dir", o.work, "work folder (default: a new temporary one)");
  app.add_option("--chromium", o.chromium, "Chromium's program")->capture_default_str();
  app.add_option("--runs", o.runs, "timed runs of each step; the median counts")->capture_default_str();
  app.add_flag("--keep", o.keep, "keep the work folder (database and pages)");
  CLI11_PARSE(app, argc, argv);
  try {
    if (o.tune.empty()) o.tune = (fs::canonical("/proc/self/exe").parent_path().parent_path() / "tune").string();
    const fs::path dir = o.work.empty() ? fs::temp_directory_path() / fmt::format("cutune_report_bench_{}", ::getpid())
                                        : fs::path(o.work);
    fs::create_directories(dir);
    const fs::path db = dir / "results.db", page = dir / "report.html", empty = dir / "empty.html";

    const auto build_start = Clock::now();
    const std::int64_t held = build_database(o, db);
    const cutune::DatabaseStats stats = cutune::Database(db).stats();
    fmt::print("database: {} measurements, {} configurations, {} devices, {} kernel versions ({:.1f} s to build)\n",
               held, stats.configurations, stats.devices.size(), stats.kernels.size(),
               std::chrono::duration<double>(Clock::now() - build_start).count());

    std::vector<double> report_s;
    for (int i = 0; i < o.runs; ++i) {
      const auto [code, seconds] = run(quote(o.tune) + " report --db " + quote(db.string()) + " -o " +
                                       quote(page.string()) + " >/dev/null");
      if (code != 0) throw std::runtime_error("tune report failed");
      report_s.push_back(seconds);
    }
    fmt::print("tune report: median {:.2f} s of {} runs (each: {}); page {:.1f} MiB\n", median(report_s), o.runs,
               fmt::join(report_s, " "), static_cast<double>(fs::file_size(page)) / (1 << 20));

    // Chromium: the page's own clock from navigation to every view drawn, and the wall time of the whole browser
    // run over that of an empty page (start-up and shut-down).
    std::ofstream(empty) << "<!doctype html><title>empty</title>";
    const std::string browser = quote(o.chromium) + " --headless --no-sandbox --disable-gpu --no-first-run "
                                "--disable-dev-shm-usage --user-data-dir=" + quote((dir / "profile").string()) +
                                " --dump-dom ";
    std::vector<double> empty_s, page_s, drawn_s;
    for (int i = 0; i < o.runs; ++i) {
      empty_s.push_back(run(browser + quote("file://" + empty.string()) + " >/dev/null 2>&1").second);
      const fs::path dom = dir / "dom.html";
      const auto [code, seconds] = run(browser + quote("file://" + page.string()) + " >" + quote(dom.string()) + " 2>/dev/null");
      const nlohmann::json status = page_status(slurp(dom));
      if (code != 0 || !status.is_object() || !status.value("done", false)) {
        throw std::runtime_error("Chromium did not finish drawing the page: " + (status.is_null() ? "no status" : status.dump()));
      }
      if (!status["errors"].empty()) throw std::runtime_error("the page reported errors: " + status["errors"].dump());
      page_s.push_back(seconds);
      drawn_s.push_back(status["page_ms"].get<double>() / 1000.0);
      if (i == 0) fmt::print("page: {} views drawn without errors\n", status["views"].size());
    }
    fmt::print("chromium: page drawn {:.2f} s after navigation (median of {}: {}); whole run {:.2f} s against {:.2f} s "
               "for an empty page\n", median(drawn_s), o.runs, fmt::join(drawn_s, " "), median(page_s), median(empty_s));
    if (!o.keep) fs::remove_all(dir);
    else fmt::print("kept {}\n", dir.string());
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
