// Reads a spec's "pipeline" section (cutune/pipeline.hpp), naming the spec and the field in every error.
#include <algorithm>
#include <limits>

#include "cutune/error.hpp"
#include "cutune/pipeline.hpp"
#include "spec_reader.hpp"

namespace cutune::detail {
namespace {

class PipelineReader {
 public:
  explicit PipelineReader(KernelSpec& spec)
      : spec_(spec), scope_(spec.scope_names()), chunk_scope_(pipeline_scope_names(spec)) {}

  void read(const Json& j) {
    if (!j.is_object()) fail("", "must be an object with length, chunk, streams, host and grid");
    for (const auto& [key, value] : j.items()) {
      static constexpr std::string_view kKeys[] = {"length", "chunk", "streams", "host", "grid", "scalars"};
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        fail("", "unknown field '" + key + "' (allowed: length, chunk, streams, host, grid, scalars)");
      }
    }
    auto pipeline = std::make_shared<PipelineSpec>();
    pipeline->length = expression(required(j, "length"), "length", scope_);
    for (const Parameter& p : spec_.parameters) {
      if (pipeline->length.uses(p.name)) fail("length", "may use shape names only, not " + p.name);
    }
    pipeline->chunk = expression(required(j, "chunk"), "chunk", scope_);
    pipeline->streams = expression(required(j, "streams"), "streams", scope_);
    read_host(required(j, "host"), *pipeline);
    read_grid(required(j, "grid"), *pipeline);
    if (j.contains("scalars")) read_scalars(j["scalars"], *pipeline);
    for (const Parameter& p : spec_.parameters) {
      if (pipeline->chunk.uses(p.name) || pipeline->streams.uses(p.name)) pipeline->host_parameters.push_back(p.name);
    }
    // Zero or too many streams, empty chunks and more chunks than a plan may hold are refused like any invalid configuration: by constraints, so
    // that `tune space` counts them and the runtime never chooses them.
    add_constraint("1 <= (" + pipeline->streams.text() + ") <= " + std::to_string(PipelineSpec::kMaxStreams));
    add_constraint("(" + pipeline->chunk.text() + ") >= 1 and ceil_div(" + pipeline->length.text() + ", " +
                   pipeline->chunk.text() + ") <= " + std::to_string(PipelineSpec::kMaxChunks));
    spec_.pipeline = std::move(pipeline);
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw SpecError("spec " + spec_.name + ": pipeline" + (field.empty() ? "" : "." + field) + ": " + what);
  }

  const Json& required(const Json& object, const char* key) const {
    if (!object.contains(key)) fail(key, "missing");
    return object[key];
  }

  Expr expression(const Json& j, const std::string& field, const std::vector<std::string>& names) const {
    try {
      Expr e;
      if (j.is_string()) {
        e = Expr::parse(j.get<std::string>());
      } else if (j.is_number_integer() && !j.is_number_unsigned()) {
        e = Expr::constant(Value(j.get<std::int64_t>()));
      } else if (j.is_number_unsigned() && j.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        e = Expr::constant(Value(static_cast<std::int64_t>(j.get<std::uint64_t>())));
      } else {
        fail(field, "must be an expression (a string or an integer)");
      }
      e.bind(names);
      return e;
    } catch (const SpecError& error) {
      if (std::string_view(error.what()).starts_with("spec " + spec_.name + ": pipeline")) throw;
      fail(field, error.what());
    }
  }

  std::size_t argument_index(const std::string& name) const {
    const auto it = std::find_if(spec_.arguments.begin(), spec_.arguments.end(),
                                 [&](const Argument& a) { return a.name == name; });
    return it == spec_.arguments.end() ? spec_.arguments.size()
                                       : static_cast<std::size_t>(it - spec_.arguments.begin());
  }

  void read_host(const Json& list, PipelineSpec& pipeline) const {
    if (!list.is_array() || list.empty()) fail("host", "must be a non-empty list of buffer argument names");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string field = "host[" + std::to_string(i) + "]";
      if (!list[i].is_string()) fail(field, "must be the name of a buffer argument");
      const std::string name = list[i].get<std::string>();
      const std::size_t index = argument_index(name);
      if (index == spec_.arguments.size()) fail(field, "'" + name + "' is not an argument");
      if (!spec_.arguments[index].is_buffer) fail(field, "'" + name + "' is a scalar, not a buffer");
      if (std::find(pipeline.host.begin(), pipeline.host.end(), index) != pipeline.host.end()) {
        fail(field, "'" + name + "' appears twice");
      }
      pipeline.host.push_back(index);
    }
    // The pipeline's results are verified where they land: in host memory.
    for (std::size_t a = 0; a < spec_.arguments.size(); ++a) {
      if (spec_.arguments[a].in_constant_memory()) {
        fail("host", "'" + spec_.arguments[a].name + "' is in constant memory, which a pipeline does not fill");
      }
      if (spec_.arguments[a].output && std::find(pipeline.host.begin(), pipeline.host.end(), a) == pipeline.host.end()) {
        fail("host", "the output '" + spec_.arguments[a].name + "' must be a host buffer");
      }
    }
  }

  void read_grid(const Json& list, PipelineSpec& pipeline) const {
    if (!list.is_array() || list.empty() || list.size() > 3) fail("grid", "must be a list of 1 to 3 expressions");
    for (auto& d : pipeline.grid) {
      d = Expr::constant(1);
      d.bind(chunk_scope_);
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      pipeline.grid[i] = expression(list[i], "grid[" + std::to_string(i) + "]", chunk_scope_);
    }
  }

  void read_scalars(const Json& object, PipelineSpec& pipeline) const {
    if (!object.is_object()) fail("scalars", "must be an object of scalar argument name: expression");
    for (const auto& [name, value] : object.items()) {
      const std::string field = "scalars." + name;
      const std::size_t index = argument_index(name);
      if (index == spec_.arguments.size()) fail(field, "'" + name + "' is not an argument");
      if (spec_.arguments[index].is_buffer) fail(field, "'" + name + "' is a buffer, not a scalar");
      pipeline.scalars.emplace_back(index, expression(value, field, chunk_scope_));
    }
  }

  void add_constraint(const std::string& text) {
    Expr e = Expr::parse(text);
    e.bind(scope_);
    spec_.constraints.push_back(std::move(e));
  }

  KernelSpec& spec_;
  std::vector<std::string> scope_;
  std::vector<std::string> chunk_scope_;
};

}  // namespace

void read_pipeline(const Json& section, KernelSpec& spec) { PipelineReader(spec).read(section); }

}  // namespace cutune::detail
