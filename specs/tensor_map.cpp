// Reads CUtensorMap arguments, turns the driver's limits on them into constraints, and computes their layout.
#include "cutune/tensor_map.hpp"

#include <algorithm>

#include "cutune/error.hpp"
#include "spec_reader.hpp"

namespace cutune {
namespace {

constexpr std::uint64_t kMaxDim = 1ull << 32;      // cuTensorMapEncodeTiled: extents up to 2^32
constexpr std::uint64_t kMaxStride = 1ull << 40;   // strides below 2^40 bytes
constexpr std::int64_t kMaxBox = 256;              // box extents up to 256
constexpr int kSwizzles[] = {0, 32, 64, 128};      // swizzle spans in bytes (0: none)
constexpr int kPromotions[] = {0, 64, 128, 256};   // L2 promotion sizes in bytes (0: none)

// A constraint the driver's limits imply, with the field it comes from and the limit in words.
struct Implied {
  std::string text;
  std::string field;
  std::string why;
};

std::string paren(const Expr& e) { return "(" + e.text() + ")"; }

// The strides in elements, as texts: the spec's, or those of a packed tensor.
std::vector<std::string> stride_texts(const TensorMapArg& m) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < m.dims.size(); ++i) {
    if (!m.strides.empty()) {
      out.push_back(paren(m.strides[i]));
    } else {
      out.push_back(i == 0 ? paren(m.dims[0]) : out.back() + " * " + paren(m.dims[i]));
    }
  }
  return out;
}

std::vector<Implied> implied_constraints(const KernelSpec& spec, const Argument& a) {
  const TensorMapArg& m = *a.tensor_map;
  const Argument& buffer = spec.arguments[m.buffer_index];
  const std::string e = std::to_string(element_size(buffer.type));
  const std::string at = "arguments." + a.name + ".";
  std::vector<Implied> out;
  for (std::size_t i = 0; i < m.dims.size(); ++i) {
    const std::string field = at + "dims[" + std::to_string(i) + "]";
    out.push_back({"1 <= " + paren(m.dims[i]) + " <= " + std::to_string(kMaxDim), field, "extents must be 1 to 2^32"});
  }
  const std::vector<std::string> strides = stride_texts(m);
  for (std::size_t i = 0; i < strides.size(); ++i) {
    const std::string field = m.strides.empty() ? at + "dims" : at + "strides[" + std::to_string(i) + "]";
    out.push_back({strides[i] + " * " + e + " % 16 == 0", field,
                   "each row's stride must be a multiple of 16 bytes (" + e + "-byte elements)"});
    out.push_back({strides[i] + " * " + e + " < " + std::to_string(kMaxStride), field, "strides must be below 2^40 bytes"});
    if (!m.strides.empty()) {
      const std::string below = i == 0 ? paren(m.dims[0]) : strides[i - 1] + " * " + paren(m.dims[i]);
      out.push_back({strides[i] + " >= " + below, field, "rows must not overlap"});
    }
  }
  const std::string extent = strides.empty() ? paren(m.dims[0]) : strides.back() + " * " + paren(m.dims.back());
  out.push_back({extent + " <= " + paren(buffer.size), at + "dims",
                 "the tensor must lie within buffer " + buffer.name + " (" + buffer.size.text() + " elements)"});
  for (std::size_t i = 0; i < m.box.size(); ++i) {
    const std::string field = at + "box[" + std::to_string(i) + "]";
    out.push_back({"1 <= " + paren(m.box[i]) + " <= " + std::to_string(kMaxBox), field, "box extents must be 1 to 256"});
  }
  out.push_back({paren(m.box[0]) + " * " + e + " % 16 == 0", at + "box[0]",
                 "the box's inner extent must be a multiple of 16 bytes (" + e + "-byte elements)"});
  const std::string s = paren(m.swizzle);
  out.push_back({s + " == 0 or " + s + " == 32 or " + s + " == 64 or " + s + " == 128", at + "swizzle",
                 "the swizzle must be 0 (none), 32, 64 or 128 bytes"});
  out.push_back({s + " == 0 or " + paren(m.box[0]) + " * " + e + " <= " + s, at + "swizzle",
                 "a swizzled box's inner extent must fit in the swizzle span"});
  return out;
}

// Whether some values of the parameters `c` names satisfy it (the others at their defaults); the search is bounded,
// and a constraint too wide to search counts as satisfiable.
bool satisfiable(const KernelSpec& spec, const Expr& c) {
  std::vector<std::size_t> used;
  std::uint64_t combinations = 1;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    if (!c.uses(spec.parameters[p].name)) continue;
    used.push_back(p);
    combinations *= spec.parameters[p].values.size();
    if (combinations > (1u << 20)) return true;
  }
  std::vector<Value> scope = spec.scope(spec.default_config(), nullptr);
  std::vector<std::size_t> index(used.size(), 0);
  for (std::uint64_t n = 0; n < combinations; ++n) {
    for (std::size_t k = 0; k < used.size(); ++k) scope[used[k]] = spec.parameters[used[k]].values[index[k]];
    if (c.eval(scope).truthy()) return true;
    for (std::size_t k = 0; k < used.size() && ++index[k] == spec.parameters[used[k]].values.size(); ++k) index[k] = 0;
  }
  return false;
}

std::int64_t integer_at(const Expr& e, const std::vector<Value>& scope) { return e.eval(scope).as_int(); }

}  // namespace

std::uint64_t TensorMapLayout::box_bytes() const {
  std::uint64_t bytes = element_size(type);
  for (std::uint32_t i = 0; i < rank; ++i) bytes *= box[i];
  return bytes;
}

TensorMapLayout tensor_map_layout(const KernelSpec& spec, const Argument& a, const Config& config, const Shape& shape) {
  if (!a.tensor_map) throw InputError("argument " + a.name + " of " + spec.name + " is not a tensor map");
  const TensorMapArg& m = *a.tensor_map;
  const std::vector<Value> scope = spec.scope(config, &shape);
  const std::string where = "tensor map " + a.name + " of " + spec.name + " at " + spec.format(config) + ", shape " +
                            shape.str() + ": ";
  auto fail = [&](const std::string& what) -> void { throw InputError(where + what); };
  TensorMapLayout out;
  out.type = spec.arguments[m.buffer_index].type;
  out.buffer_index = m.buffer_index;
  out.rank = static_cast<std::uint32_t>(m.dims.size());
  out.l2_promotion = m.l2_promotion;
  out.oob_nan = m.oob_nan;
  const std::uint64_t e = element_size(out.type);
  for (std::uint32_t i = 0; i < out.rank; ++i) {
    const std::int64_t d = integer_at(m.dims[i], scope);
    if (d < 1 || static_cast<std::uint64_t>(d) > kMaxDim) fail("dims[" + std::to_string(i) + "] = " + std::to_string(d) + " is not in 1..2^32");
    out.dims[i] = static_cast<std::uint64_t>(d);
    const std::int64_t b = integer_at(m.box[i], scope);
    if (b < 1 || b > kMaxBox) fail("box[" + std::to_string(i) + "] = " + std::to_string(b) + " is not in 1..256");
    out.box[i] = static_cast<std::uint32_t>(b);
  }
  std::uint64_t packed = out.dims[0] * e;
  for (std::uint32_t i = 0; i + 1 < out.rank; ++i) {
    const std::uint64_t stride =
        m.strides.empty() ? packed : static_cast<std::uint64_t>(std::max<std::int64_t>(0, integer_at(m.strides[i], scope))) * e;
    if (stride % 16 != 0 || stride >= kMaxStride || stride == 0) {
      fail("stride " + std::to_string(i) + " of " + std::to_string(stride) + " bytes is not a multiple of 16 below 2^40");
    }
    out.strides[i] = stride;
    packed = stride * out.dims[i + 1];
  }
  if (out.box[0] * e % 16 != 0) fail("the box's inner extent of " + std::to_string(out.box[0] * e) + " bytes is not a multiple of 16");
  out.swizzle = static_cast<int>(integer_at(m.swizzle, scope));
  if (std::find(std::begin(kSwizzles), std::end(kSwizzles), out.swizzle) == std::end(kSwizzles)) {
    fail("swizzle " + std::to_string(out.swizzle) + " is not 0, 32, 64 or 128");
  }
  if (out.swizzle != 0 && out.box[0] * e > static_cast<std::uint64_t>(out.swizzle)) {
    fail("the box's inner extent of " + std::to_string(out.box[0] * e) + " bytes exceeds the swizzle span of " +
         std::to_string(out.swizzle));
  }
  return out;
}

bool tensor_map_used(const Argument& a, const std::vector<Value>& scope) {
  return a.tensor_map && (!a.tensor_map->when || a.tensor_map->when->eval(scope).truthy());
}

bool tensor_map_used(const KernelSpec& spec, const Argument& a, const Config& config) {
  if (!a.tensor_map || !a.tensor_map->when) return a.tensor_map.has_value();
  return tensor_map_used(a, spec.scope(config, nullptr));
}

std::vector<std::size_t> tensor_map_arguments(const KernelSpec& spec) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    if (spec.arguments[i].tensor_map) out.push_back(i);
  }
  return out;
}

namespace detail {

namespace {

// The list `key` of 1 to 5 expressions; `shape_only`: of shape names alone, as the map's extents in memory must be.
std::vector<Expr> expression_list(const Json& j, const char* key, bool shape_only, const std::string& field,
                                  const FieldReader& reader, const KernelSpec& spec) {
  std::vector<Expr> out;
  const std::string at = field + "." + key;
  const Json& items = j[key];
  if (!items.is_array() || items.empty() || items.size() > 5) reader.fail(at, "must be a list of 1 to 5 expressions");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = at + "[" + std::to_string(i) + "]";
    out.push_back(reader.expression(items[i], item));
    for (const Parameter& p : spec.parameters) {
      if (shape_only && out.back().uses(p.name)) reader.fail(item, "may use shape names only, not " + p.name);
    }
  }
  return out;
}

// dims and box, one entry per dimension, and strides, one per dimension after the first.
void read_extents(const Json& j, const std::string& field, const FieldReader& reader, const KernelSpec& spec,
                  TensorMapArg& m) {
  if (!j.contains("dims")) reader.fail(field + ".dims", "missing");
  if (!j.contains("box")) reader.fail(field + ".box", "missing");
  m.dims = expression_list(j, "dims", true, field, reader, spec);
  m.box = expression_list(j, "box", false, field, reader, spec);
  if (m.box.size() != m.dims.size()) {
    reader.fail(field + ".box", "must have one entry per dimension (" + std::to_string(m.dims.size()) + ")");
  }
  if (!j.contains("strides")) return;
  if (m.dims.size() == 1) reader.fail(field + ".strides", "a tensor of one dimension has no strides");
  m.strides = expression_list(j, "strides", true, field, reader, spec);
  if (m.strides.size() + 1 != m.dims.size()) {
    reader.fail(field + ".strides", "must have one entry per dimension after the first (" +
                                        std::to_string(m.dims.size() - 1) + ")");
  }
}

int read_l2_promotion(const Json& p, const std::string& field, const FieldReader& reader) {
  if (!p.is_number_integer() ||
      std::find(std::begin(kPromotions), std::end(kPromotions), p.get<std::int64_t>()) == std::end(kPromotions)) {
    reader.fail(field + ".l2_promotion", "must be 0 (none), 64, 128 or 256 bytes");
  }
  return static_cast<int>(p.get<std::int64_t>());
}

// Whether elements outside the tensor read as NaN ("nan") rather than zero ("zero").
bool read_oob_nan(const Json& f, const std::string& field, const FieldReader& reader) {
  if (!f.is_string() || (f.get<std::string>() != "zero" && f.get<std::string>() != "nan")) {
    reader.fail(field + ".oob_fill", "must be \"zero\" or \"nan\"");
  }
  return f.get<std::string>() == "nan";
}

// The kernel reads the map or not by its compiled code, which serves every shape.
Expr read_when(const Json& when, const std::string& field, const FieldReader& reader, const KernelSpec& spec) {
  Expr out = reader.expression(when, field + ".when");
  for (const auto& name : spec.shape_names) {
    if (out.uses(name)) reader.fail(field + ".when", "may use parameter names only, not the shape's " + name);
  }
  return out;
}

}  // namespace

void read_tensor_map(const Json& j, const std::string& field, const FieldReader& reader, const KernelSpec& spec,
                     Argument& a) {
  reader.check_keys(j, field,
                    {"name", "type", "buffer", "dims", "strides", "box", "swizzle", "l2_promotion", "oob_fill", "when"});
  TensorMapArg m;
  if (!j.contains("buffer") || !j["buffer"].is_string()) reader.fail(field + ".buffer", "must name a buffer argument");
  m.buffer = j["buffer"].get<std::string>();
  read_extents(j, field, reader, spec, m);
  m.swizzle = j.contains("swizzle") ? reader.expression(j["swizzle"], field + ".swizzle") : Expr::constant(0);
  if (j.contains("l2_promotion")) m.l2_promotion = read_l2_promotion(j["l2_promotion"], field, reader);
  if (j.contains("oob_fill")) m.oob_nan = read_oob_nan(j["oob_fill"], field, reader);
  if (j.contains("when")) m.when = read_when(j["when"], field, reader, spec);
  a.tensor_map = std::move(m);
}

void finish_tensor_maps(const FieldReader& reader, KernelSpec& spec) {
  for (const std::size_t index : tensor_map_arguments(spec)) {
    Argument& a = spec.arguments[index];
    TensorMapArg& m = *a.tensor_map;
    const std::string field = "arguments." + a.name;
    const auto buffer = std::find_if(spec.arguments.begin(), spec.arguments.end(),
                                     [&](const Argument& b) { return b.name == m.buffer; });
    if (buffer == spec.arguments.end() || !buffer->is_buffer || buffer->in_constant_memory()) {
      reader.fail(field + ".buffer", "'" + m.buffer + "' is not a buffer argument of " + spec.name);
    }
    m.buffer_index = static_cast<std::size_t>(buffer - spec.arguments.begin());
    a.type = buffer->type;
    const bool floating = a.type == ElementType::Float32 || a.type == ElementType::Float64 ||
                          a.type == ElementType::BFloat16 || a.type == ElementType::Float16;
    const bool bytes = a.type == ElementType::Float8E4M3 || a.type == ElementType::Float8E5M2;
    if (m.oob_nan && bytes) reader.fail(field + ".oob_fill", "\"nan\" is not available for 8-bit floats (moved as bytes)");
    if (m.oob_nan && !floating) reader.fail(field + ".oob_fill", "\"nan\" needs a floating-point buffer");
    // A configuration that does not read the map is not bound by its limits; one that does must be able to meet them.
    const std::string guard = m.when ? paren(*m.when) : "";
    auto bound = [&](const std::string& text) {
      Expr c = Expr::parse(text);
      c.bind(spec.scope_names());
      return c;
    };
    // A map that no configuration reads (zeros in its place, for a kernel that takes it beside another that does not:
    // a library family's reference) has no limits to meet.
    if (!guard.empty() && !satisfiable(spec, bound(guard))) continue;
    for (const Implied& implied : implied_constraints(spec, a)) {
      Expr c = bound(guard.empty() ? implied.text : "not " + guard + " or (" + implied.text + ")");
      const bool on_shape = std::any_of(spec.shape_names.begin(), spec.shape_names.end(),
                                        [&](const std::string& n) { return c.uses(n); });
      // What holds for no configuration is the spec's mistake; what depends on the shape prunes at each shape.
      if (!on_shape && !satisfiable(spec, guard.empty() ? c : bound(guard + " and (" + implied.text + ")"))) {
        reader.fail(implied.field, implied.why + ": '" + implied.text + "' holds for no configuration" +
                                       (guard.empty() ? "" : " that reads the map (" + m.when->text() + ")"));
      }
      if (!c.names().empty()) spec.constraints.push_back(std::move(c));
    }
  }
}

}  // namespace detail
}  // namespace cutune
