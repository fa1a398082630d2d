// Writes report pages: HTML around the embedded stylesheet, Vega modules, page script and escaped data.
#include "page_writer.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <ostream>

#include "cutune/report_files.hpp"
#include "cutune/error.hpp"
#include "cutune/report.hpp"

namespace cutune::detail {
namespace {

// Debian's libjs-vega modules the page needs, each after those it requires (vega-functions' dependencies before
// it, the transforms last: they are registered after every module ran).
constexpr std::array<std::string_view, 19> kVegaModules{
    "vega-util",       "vega-canvas",     "vega-time",         "vega-format",      "vega-loader",
    "vega-dataflow",   "vega-statistics", "vega-scale",        "vega-expression",  "vega-event-selector",
    "vega-scenegraph", "vega-selection",  "vega-functions",    "vega-runtime",     "vega-parser",
    "vega-view",       "vega-transforms", "vega-view-transforms", "vega-encode"};

std::string_view embedded_text(std::string_view name) {
  for (const auto& file : report_files::kEmbeddedFiles)
    if (file.name == name) return file.text;
  throw Error("the report's file " + std::string(name) + " was not embedded into this build of cutune");
}

// Script text goes into the page verbatim: it must not close its element, and it must not point the browser's
// developer tools at source maps that are not there.
std::string script_text(std::string_view name) {
  std::string text(embedded_text(name));
  for (const char* forbidden : {"</script", "</SCRIPT", "<!--"}) {
    if (text.find(forbidden) != std::string::npos) {
      throw Error("the report's script " + std::string(name) + " contains '" + forbidden + "'");
    }
  }
  if (const auto map = text.find("//# sourceMappingURL="); map != std::string::npos) {
    text.erase(map, text.find('\n', map) == std::string::npos ? std::string::npos : text.find('\n', map) - map);
  }
  return text;
}

}  // namespace

std::string script_safe_json(const PageJson& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (const char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string vega_script() {
  std::string out = script_text("vega_modules.js");
  for (const std::string_view module : kVegaModules) {
    out += "\ncutuneVegaDefine(\"" + std::string(module) + "\", function (module, exports, require) {\n";
    out += script_text(std::string(module) + ".min.js");
    out += "\n});";
  }
  out += "\nvar vega = cutuneVegaNamespace();\n";
  return out;
}

void write_page(const PageJson& data, std::ostream& out) {
  const std::string title = data.value("title", std::string("cutune report"));
  out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta name=\"generator\" content=\"cutune " << CUTUNE_VERSION << "\">\n"
      << "<title>" << html_escape(title) << "</title>\n<style>\n"
      << embedded_text("report.css") << "</style>\n</head>\n<body>\n"
      << "<header id=\"top\"></header>\n<main id=\"report\"></main>\n"
      << "<footer><p>Written by cutune " << CUTUNE_VERSION
      << ". Plots drawn by Vega (BSD-3-Clause), inlined: the page needs no network.</p>\n"
      << "<pre id=\"cutune-status\">{\"done\":false}</pre></footer>\n"
      << "<script type=\"application/json\" id=\"cutune-data\">" << script_safe_json(data) << "</script>\n"
      << "<script>\n" << vega_script() << "</script>\n"
      << "<script>\n" << script_text("report.js") << "</script>\n</body>\n</html>\n";
}

namespace {

InputError write_error(const std::filesystem::path& file, const std::string& why) {
  return InputError("cannot write '" + file.string() + "': " + why);
}

}  // namespace

void write_file_whole(const std::filesystem::path& file, const std::function<void(std::ostream&)>& body) {
  namespace fs = std::filesystem;
  const auto fail = [&](const std::string& why) { return write_error(file, why); };
  check_report_path(file);
  std::error_code ec;
  fs::path temporary = file;
  temporary += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw fail(std::strerror(errno));
    try {
      body(out);
    } catch (...) {
      out.close();
      fs::remove(temporary, ec);
      throw;
    }
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      out.close();
      fs::remove(temporary, ec);
      throw fail(why);
    }
  }
  fs::rename(temporary, file, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw fail(ec.message());
  }
}

}  // namespace cutune::detail

namespace cutune {

void check_report_path(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (file.empty()) throw InputError("no file named to write the report to");
  if (fs::is_directory(file, ec)) throw detail::write_error(file, "it is a directory");
  const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) throw detail::write_error(file, "directory '" + parent.string() + "' does not exist");
  if (::access(parent.c_str(), W_OK) != 0) throw detail::write_error(file, std::strerror(errno));
}

}  // namespace cutune
