// Assembling a report page: the data escaped for a script element, the inlined Vega modules, the file written whole.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include "report_json.hpp"

namespace cutune::detail {

/// JSON text that cannot end or confuse the script element holding it: '<', '>' and '&' become \u escapes
/// (they only occur inside strings, where the escape means the same character). Invalid UTF-8 from a database
/// becomes U+FFFD instead of failing the report.
std::string script_safe_json(const PageJson& data);

/// Text for an HTML element or attribute.
std::string html_escape(std::string_view text);

/// Debian's Vega modules that the page uses, embedded at build time, wrapped so that they find one another
/// (page/vega_modules.js); defines `vega` as the vega package does.
std::string vega_script();

/// The whole page: `data` drawn by page/report.js.
void write_page(const PageJson& data, std::ostream& out);

/// Writes a file through a temporary one beside it, renamed into place only when `body` succeeded; throws
/// InputError naming the file when it cannot be written.
void write_file_whole(const std::filesystem::path& file, const std::function<void(std::ostream&)>& body);

}  // namespace cutune::detail
