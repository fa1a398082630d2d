// Turns a spec's pipeline section into numbers: the chunks of a configuration at a shape, and each chunk's launch.
#include "cutune/pipeline.hpp"

#include "cutune/error.hpp"

namespace cutune {
namespace {

const PipelineSpec& pipeline_of(const KernelSpec& spec) {
  if (!spec.pipeline) throw InputError("kernel " + spec.name + " has no pipeline section");
  return *spec.pipeline;
}

// The pipeline scope's values for one chunk: the configuration's and the shape's, then CHUNK_LEN and CHUNK_START.
std::vector<Value> chunk_scope(const KernelSpec& spec, const Config& config, const Shape& shape,
                               const PipelineChunk& chunk) {
  std::vector<Value> values = spec.scope(config, &shape);
  values.emplace_back(chunk.length);
  values.emplace_back(chunk.start);
  return values;
}

}  // namespace

std::vector<std::string> pipeline_scope_names(const KernelSpec& spec) {
  std::vector<std::string> names = spec.scope_names();
  names.emplace_back("CHUNK_LEN");
  names.emplace_back("CHUNK_START");
  return names;
}

PipelinePlan plan_pipeline(const KernelSpec& spec, const Config& config, const Shape& shape) {
  const PipelineSpec& p = pipeline_of(spec);
  const std::vector<Value> scope = spec.scope(config, &shape);
  const std::string where = " of " + spec.name + " at " + spec.format(config) + ", shape " + shape.str();
  PipelinePlan plan;
  plan.length = p.length.eval(scope).as_int();
  const std::int64_t chunk = p.chunk.eval(scope).as_int();
  const std::int64_t streams = p.streams.eval(scope).as_int();
  if (plan.length < 1) throw InputError("the pipeline length '" + p.length.text() + "'" + where + " is below 1");
  if (chunk < 1) throw InputError("the pipeline chunk '" + p.chunk.text() + "'" + where + " is below 1");
  if (streams < 1 || streams > PipelineSpec::kMaxStreams) {
    throw InputError("the pipeline streams '" + p.streams.text() + "'" + where + " is " + std::to_string(streams) +
                     ", not 1 to " + std::to_string(PipelineSpec::kMaxStreams));
  }
  if ((plan.length - 1) / chunk + 1 > PipelineSpec::kMaxChunks) {
    throw InputError("the pipeline" + where + " has more than " + std::to_string(PipelineSpec::kMaxChunks) +
                     " chunks of " + std::to_string(chunk) + ": choose a larger chunk");
  }
  plan.chunk = std::min(chunk, plan.length);
  plan.streams = static_cast<int>(streams);
  const std::int64_t count = (plan.length - 1) / plan.chunk + 1;  // i * chunk stays below length: no overflow
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t start = i * plan.chunk;
    plan.chunks.push_back({start, std::min(plan.chunk, plan.length - start), static_cast<int>(i % streams)});
  }
  for (const std::size_t index : p.host) {
    const Argument& a = spec.arguments[index];
    const std::int64_t elements = a.size.eval(scope).as_int();
    if (elements < 1 || elements % plan.length != 0) {
      throw InputError("the host buffer " + a.name + where + " has " + std::to_string(elements) +
                       " elements, not a whole positive number per item of the pipeline's " +
                       std::to_string(plan.length));
    }
    plan.per_item.push_back(elements / plan.length);
    plan.elements.push_back(elements);
  }
  return plan;
}

Launch chunk_launch(const KernelSpec& spec, const Config& config, const Shape& shape, const PipelineChunk& chunk) {
  const PipelineSpec& p = pipeline_of(spec);
  // The grid is the pipeline's own (below): the spec's, and so SM_COUNT, is not used.
  Launch launch = spec.resolve(spec.launch, config, shape, 0);
  const std::vector<Value> scope = chunk_scope(spec, config, shape, chunk);
  for (std::size_t i = 0; i < 3; ++i) {
    const Value v = p.grid[i].eval(scope);
    try {
      launch.grid[i] = v.as_int();
    } catch (const SpecError&) {
      throw SpecError("spec " + spec.name + ": pipeline.grid[" + std::to_string(i) + "] '" + p.grid[i].text() +
                      "' is " + v.str() + " at " + spec.format(config) + ", not an integer");
    }
  }
  return launch;
}

std::vector<Value> chunk_scalars(const KernelSpec& spec, const Config& config, const Shape& shape,
                                 const PipelineChunk& chunk) {
  const PipelineSpec& p = pipeline_of(spec);
  const std::vector<Value> whole = spec.scope(config, &shape);
  const std::vector<Value> scope = chunk_scope(spec, config, shape, chunk);
  std::vector<Value> values;
  for (const Argument& a : spec.arguments) values.push_back(a.is_buffer ? Value(0) : a.value.eval(whole));
  for (const auto& [index, e] : p.scalars) values[index] = e.eval(scope);
  return values;
}

}  // namespace cutune
