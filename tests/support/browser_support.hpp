// Opens pages in headless Chromium for the report tests: finds the browser, dumps the rendered DOM, reads the
// status the page records (script errors, marks each Vega view drew).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace cutune::testing {

/// Chromium's executable: $CUTUNE_CHROMIUM, else chromium or chromium-browser on PATH; nullopt when none.
inline std::optional<std::string> find_chromium() {
  if (const char* chosen = std::getenv("CUTUNE_CHROMIUM"); chosen != nullptr && *chosen != '\0') return chosen;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    start = end + 1;
  }
  return std::nullopt;
}

/// Loads `page` headless (its own profile under `work`), lets it run up to `budget_ms` of virtual time, and returns
/// the serialised DOM afterwards; empty when Chromium failed. `screenshot` also writes a PNG of the page's top.
inline std::string render_page(const std::string& chromium, const std::filesystem::path& page,
                               const std::filesystem::path& work, int budget_ms = 20000,
                               const std::filesystem::path& screenshot = {}) {
  const std::filesystem::path dom = work / "dom.html", log = work / "chromium.log";
  const std::string common = "timeout 120 '" + chromium + "' --headless --no-sandbox --disable-gpu --no-first-run "
                             "--disable-dev-shm-usage --user-data-dir='" + (work / "profile").string() +
                             "' --virtual-time-budget=" + std::to_string(budget_ms) + " ";
  const std::string url = "'file://" + std::filesystem::absolute(page).string() + "'";
  if (std::system((common + "--dump-dom " + url + " >'" + dom.string() + "' 2>'" + log.string() + "'").c_str()) != 0) {
    return {};
  }
  if (!screenshot.empty()) {
    std::system((common + "--window-size=1400,2400 --screenshot='" + screenshot.string() + "' " + url + " >>'" +
                 log.string() + "' 2>&1").c_str());
  }
  std::ifstream in(dom, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The JSON the page wrote into <pre id="cutune-status">, read back from the serialised DOM.
inline nlohmann::json page_status(const std::string& dom) {
  const std::string open = "<pre id=\"cutune-status\">";
  const auto from = dom.find(open);
  if (from == std::string::npos) return nullptr;
  const auto to = dom.find("</pre>", from);
  std::string text = dom.substr(from + open.size(), to - from - open.size());
  // The serialiser escapes these three in text.
  for (const auto& [entity, c] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + c.size())) {
      text.replace(at, entity.size(), c);
    }
  }
  return nlohmann::json::parse(text, nullptr, false);
}

}  // namespace cutune::testing
