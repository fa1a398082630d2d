// libFuzzer target for the spec reader: spec text through KernelSpec::from_json, then the methods every run uses.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cutune/error.hpp"
#include "cutune/pipeline.hpp"
#include "cutune/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cutune::KernelSpec spec;
  try {
    spec = cutune::KernelSpec::from_json(text, "extern \"C\" __global__ void k() {}\n", "fuzz.cu");
  } catch (const cutune::Error&) {
    return 0;  // a malformed spec, reported as such
  }

  // The canonical form of the default configuration reads back as itself (the database's key relies on it).
  const cutune::Config config = spec.default_config();
  const std::string printed = spec.format(config);
  try {
    if (!(spec.parse_config(printed) == config)) {
      std::fprintf(stderr, "configuration %s does not read back as itself\n", printed.c_str());
      std::abort();
    }
  } catch (const cutune::Error& e) {
    std::fprintf(stderr, "configuration %s does not read back: %s\n", printed.c_str(), e.what());
    std::abort();
  }

  // Geometry, tolerance and metric at a small shape: the expressions the reader accepted must evaluate or fail
  // with a clear error.
  std::string shape_text;
  for (std::size_t i = 0; i < spec.shape_names.size(); ++i) shape_text += i ? "x3" : "3";
  try {
    const cutune::Shape shape = spec.parse_shape(shape_text);
    spec.resolve(spec.launch, config, shape, 132);
    spec.tolerance_at(shape);
    spec.metric_amount(shape);
    for (const auto& define : spec.defines(config)) (void)define;
    if (spec.pipeline) {  // a host pipeline's plan and its last (possibly shorter) chunk
      const cutune::PipelinePlan plan = cutune::plan_pipeline(spec, config, shape);
      cutune::chunk_launch(spec, config, shape, plan.chunks.back());
      cutune::chunk_scalars(spec, config, shape, plan.chunks.back());
    }
  } catch (const cutune::Error&) {
  }
  return 0;
}
