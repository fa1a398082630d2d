// Host-only tests of host pipelines: the spec section and its errors, chunk plans, constraints on streams, the
// built-in pipeline templates' spaces, and NVRTC compiles of a sample that covers every kernel parameter value.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_support.hpp"
#include "cutune/compiler.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/pipeline.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

// A small pipeline spec of the test's own; `pipeline` replaces the section, `extra` adds top-level fields.
std::string spec_text(const std::string& pipeline, const std::string& streams = "[1, 2, 4]",
                      const std::string& y_size = "N") {
  return R"js({"name": "pipe", "source": "p.cu", "kernel": "k", "shape": ["N"],
    "parameters": {"CHUNK": [100, 1000, 4096], "STREAMS": )js" + streams + R"js(, "BLOCK": [64, 128]},
    "block": ["BLOCK"], "grid": ["ceil_div(N, BLOCK)"],
    "arguments": [{"name": "y", "type": "float*", "size": ")js" + y_size + R"js(", "output": true},
                  {"name": "x", "type": "const float*", "size": "N"},
                  {"name": "table", "type": "const float*", "size": "16"},
                  {"name": "n", "type": "int64", "value": "N"},
                  {"name": "start", "type": "int64", "value": 0}],
    "reference": {"configuration": {"CHUNK": 4096}},
    "metric": {"bytes": "8 * N"},
    "pipeline": )js" + pipeline + "}";
}

const std::string kSection = R"js({"length": "N", "chunk": "CHUNK", "streams": "STREAMS", "host": ["y", "x"],
    "grid": ["ceil_div(CHUNK_LEN, BLOCK)"], "scalars": {"n": "CHUNK_LEN", "start": "CHUNK_START"}})js";

KernelSpec parse(const std::string& text) { return KernelSpec::from_json(text, "", "p.cu"); }

Config config(const KernelSpec& spec, const std::string& text) { return spec.parse_config(text); }

TEST(PipelineSpec, ReadsTheSection) {
  const KernelSpec spec = parse(spec_text(kSection));
  ASSERT_TRUE(spec.pipeline);
  EXPECT_EQ(spec.pipeline->host, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(spec.pipeline->host_parameters, (std::vector<std::string>{"CHUNK", "STREAMS"}));
  ASSERT_EQ(spec.pipeline->scalars.size(), 2u);
  EXPECT_EQ(spec.pipeline->scalars[0].first, 3u);
  // Chunk and stream counts never reach the compiler: configurations differing only in them share a binary.
  const Config a = config(spec, "CHUNK=100,STREAMS=1,BLOCK=128"), b = config(spec, "CHUNK=4096,STREAMS=4,BLOCK=128");
  EXPECT_EQ(spec.defines(a), (std::vector<std::string>{"-DBLOCK=128"}));
  EXPECT_EQ(CubinCache::key(spec, spec.kernel, spec.defines(a), "sm_90"),
            CubinCache::key(spec, spec.kernel, spec.defines(b), "sm_90"));
  EXPECT_FALSE(parse(spec_text(kSection)).pipeline == nullptr);
  EXPECT_EQ(load_kernel("transpose").pipeline, nullptr);
}

TEST(PipelineSpec, ErrorsNameTheField) {
  const auto error = [](const std::string& section, const std::string& y_size = "N") {
    try {
      parse(spec_text(section, "[1, 2, 4]", y_size));
    } catch (const SpecError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string base = R"js("length": "N", "chunk": "CHUNK", "streams": "STREAMS", "grid": ["1"])js";
  EXPECT_EQ(error("[]"), "spec pipe: pipeline: must be an object with length, chunk, streams, host and grid");
  EXPECT_EQ(error(R"js({"chunk": "CHUNK", "streams": "STREAMS", "host": ["y"], "grid": ["1"]})js"),
            "spec pipe: pipeline.length: missing");
  EXPECT_EQ(error("{" + base + R"js(, "host": ["y"], "depth": 2})js"),
            "spec pipe: pipeline: unknown field 'depth' (allowed: length, chunk, streams, host, grid, scalars)");
  EXPECT_EQ(error("{" + base + R"js(, "host": []})js"), "spec pipe: pipeline.host: must be a non-empty list of buffer argument names");
  EXPECT_EQ(error("{" + base + R"js(, "host": ["y", "z"]})js"), "spec pipe: pipeline.host[1]: 'z' is not an argument");
  EXPECT_EQ(error("{" + base + R"js(, "host": ["y", "n"]})js"), "spec pipe: pipeline.host[1]: 'n' is a scalar, not a buffer");
  EXPECT_EQ(error("{" + base + R"js(, "host": ["y", "y"]})js"), "spec pipe: pipeline.host[1]: 'y' appears twice");
  EXPECT_EQ(error("{" + base + R"js(, "host": ["x"]})js"), "spec pipe: pipeline.host: the output 'y' must be a host buffer");
  EXPECT_EQ(error(R"js({"length": "N * CHUNK", "chunk": "CHUNK", "streams": "STREAMS", "host": ["y"], "grid": ["1"]})js"),
            "spec pipe: pipeline.length: may use shape names only, not CHUNK");
  EXPECT_EQ(error(R"js({"length": "N", "chunk": "CHUNK", "streams": "STREAMS", "host": ["y"], "grid": ["M"]})js"),
            "spec pipe: pipeline.grid[0]: unknown name 'M' in 'M'");
  EXPECT_EQ(error("{" + base + R"js(, "host": ["y"], "scalars": {"x": "1"}})js"),
            "spec pipe: pipeline.scalars.x: 'x' is a buffer, not a scalar");
  // CHUNK_LEN exists per chunk only: the chunk size itself cannot depend on it.
  EXPECT_EQ(error(R"js({"length": "N", "chunk": "CHUNK_LEN", "streams": "1", "host": ["y"], "grid": ["1"]})js"),
            "spec pipe: pipeline.chunk: unknown name 'CHUNK_LEN' in 'CHUNK_LEN'");
}

// 1,000,003 items in chunks of 1000 over 4 streams: 1000 full chunks and a last one of 3, round-robin.
TEST(PipelinePlan, ShorterLastChunkRoundRobin) {
  const KernelSpec spec = parse(spec_text(kSection));
  const Shape shape{{1000003}};
  const Config c = config(spec, "CHUNK=1000,STREAMS=4,BLOCK=64");
  const PipelinePlan plan = plan_pipeline(spec, c, shape);
  EXPECT_EQ(plan.length, 1000003);
  EXPECT_EQ(plan.chunk, 1000);
  ASSERT_EQ(plan.chunks.size(), 1001u);
  EXPECT_EQ(plan.streams_used(), 4);
  std::int64_t covered = 0;
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    EXPECT_EQ(plan.chunks[i].start, covered);
    EXPECT_EQ(plan.chunks[i].stream, static_cast<int>(i % 4));
    covered += plan.chunks[i].length;
  }
  EXPECT_EQ(covered, 1000003);
  EXPECT_EQ(plan.chunks.back().length, 3);
  EXPECT_EQ(plan.per_item, (std::vector<std::int64_t>{1, 1}));
  // The last chunk's launch and scalars: 3 items, starting at 1,000,000.
  EXPECT_EQ(chunk_launch(spec, c, shape, plan.chunks.back()).grid, (std::array<std::int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(chunk_launch(spec, c, shape, plan.chunks.front()).grid, (std::array<std::int64_t, 3>{16, 1, 1}));
  EXPECT_EQ(chunk_launch(spec, c, shape, plan.chunks.front()).block, (std::array<std::int64_t, 3>{64, 1, 1}));
  const std::vector<Value> scalars = chunk_scalars(spec, c, shape, plan.chunks.back());
  EXPECT_EQ(scalars[3].as_int(), 3);
  EXPECT_EQ(scalars[4].as_int(), 1000000);
}

TEST(PipelinePlan, ChunkLargerThanTheArrayIsOneChunk) {
  const KernelSpec spec = parse(spec_text(kSection));
  const PipelinePlan plan = plan_pipeline(spec, config(spec, "CHUNK=4096,STREAMS=4,BLOCK=64"), Shape{{1000}});
  EXPECT_EQ(plan.chunk, 1000);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0].length, 1000);
  EXPECT_EQ(plan.streams_used(), 1);
}

TEST(PipelinePlan, ElementsPerItem) {
  const KernelSpec spec = parse(spec_text(kSection, "[1, 2, 4]", "2 * N"));
  const PipelinePlan plan = plan_pipeline(spec, config(spec, "CHUNK=100,STREAMS=2,BLOCK=64"), Shape{{250}});
  EXPECT_EQ(plan.per_item, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(plan.elements, (std::vector<std::int64_t>{500, 250}));
  const KernelSpec odd = parse(spec_text(kSection, "[1, 2, 4]", "N + 1"));
  EXPECT_THROW(plan_pipeline(odd, config(odd, "CHUNK=100,STREAMS=2,BLOCK=64"), Shape{{250}}), InputError);
}

// Zero or too many streams are removed by the constraints the reader adds, so tune space counts them and the
// runtime never chooses them; planning them anyway is an error, not a hang or an overflow.
TEST(PipelinePlan, StreamsOutOfRangeAreRefusedByConstraints) {
  const KernelSpec spec = parse(spec_text(kSection, "[0, 1, 16, 17, 64]"));
  const Space space = Space::enumerate(spec, Shape{{1000003}}, DeviceLimits{});
  EXPECT_EQ(space.cartesian_size(), 3u * 5u * 2u);
  EXPECT_EQ(space.size(), 3u * 2u * 2u);
  EXPECT_EQ(space.removed_by_constraints(), 3u * 3u * 2u);
  for (const Config& c : space.configs()) {
    EXPECT_TRUE(c.values[1].as_int() == 1 || c.values[1].as_int() == 16) << spec.format(c);
  }
  const auto why = invalid_config(spec, "CHUNK=100,STREAMS=0,BLOCK=64", "1000");
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "it violates the constraint '1 <= (STREAMS) <= 16' of pipe");
  EXPECT_TRUE(invalid_config(spec, "CHUNK=100,STREAMS=17,BLOCK=64", "1000"));
  EXPECT_THROW(plan_pipeline(spec, config(spec, "CHUNK=100,STREAMS=0,BLOCK=64"), Shape{{1000}}), InputError);
  EXPECT_THROW(plan_pipeline(spec, config(spec, "CHUNK=100,STREAMS=17,BLOCK=64"), Shape{{1000}}), InputError);
  EXPECT_THROW(plan_pipeline(load_kernel("transpose"), load_kernel("transpose").default_config(), Shape{{8, 8}}),
               InputError);
}

// A plan holds every chunk's launch: more than 2^20 chunks are refused by a constraint, and by the planner.
TEST(PipelinePlan, TooManyChunksAreRefused) {
  const KernelSpec spec = parse(spec_text(kSection));
  const std::int64_t n = 100LL * (1 << 20) + 1;  // 2^20 + 1 chunks of 100
  EXPECT_EQ(plan_pipeline(spec, config(spec, "CHUNK=100,STREAMS=4,BLOCK=64"), Shape{{n - 1}}).chunks.size(), 1u << 20);
  EXPECT_THROW(plan_pipeline(spec, config(spec, "CHUNK=100,STREAMS=4,BLOCK=64"), Shape{{n}}), InputError);
  const auto why = invalid_config(spec, "CHUNK=100,STREAMS=4,BLOCK=64", std::to_string(n));
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "it violates the constraint '(CHUNK) >= 1 and ceil_div(N, CHUNK) <= 1048576' of pipe");
  EXPECT_FALSE(invalid_config(spec, "CHUNK=1000,STREAMS=4,BLOCK=64", std::to_string(n)));
}

// CHUNK: 2^18 .. 2^26; at N = 1,000,003 the chunks below 2N are 2^18, 2^19 and 2^20, with at most
// ceil(N / CHUNK) = 4, 2 and 1 streams of STREAMS' values: 4 + 2 + 1 = 7, times 3 BLOCK x 4 ITEMS.
TEST(PipelineTemplates, Spaces) {
  for (const char* name : {"saxpy_pipeline", "poly_pipeline"}) {
    const KernelSpec spec = load_kernel(name);
    ASSERT_TRUE(spec.pipeline) << name;
    EXPECT_EQ(spec.source_name, "pipeline.cu");
    EXPECT_EQ(Space::enumerate(spec, Shape{{1000003}}, DeviceLimits{}).size(), 7u * 12u) << name;
    EXPECT_EQ(Space::enumerate(spec, Shape{{1000}}, DeviceLimits{}).size(), 12u) << name;  // one chunk, one stream
    // 1 GiB of floats: every chunk size; 2^26 elements makes 4 chunks, so up to 4 streams there.
    EXPECT_EQ(Space::enumerate(spec, Shape{{1LL << 28}}, DeviceLimits{}).size(), (8u * 6u + 4u) * 12u) << name;
    EXPECT_FALSE(invalid_config(spec, spec.format(spec.default_config()), "268435456"));
  }
  EXPECT_NE(load_kernel("saxpy_pipeline").hash, load_kernel("poly_pipeline").hash);
  EXPECT_EQ(load_kernel("poly_pipeline").compile_options, (std::vector<std::string>{"-DSTEPS=2048"}));
}

// Every value of BLOCK and ITEMS (the only parameters that reach the source) compiles for sm_90, and so do the
// references; the light kernel's binary does not depend on the chunk or the streams.
TEST(PipelineTemplates, Compile) {
  for (const char* name : {"saxpy_pipeline", "poly_pipeline"}) {
    const KernelSpec spec = load_kernel(name);
    const CompileOutput ref = compile_reference(spec, "sm_90");
    ASSERT_TRUE(ref.ok) << name << ": " << ref.log;
    std::set<std::vector<std::string>> binaries;
    const Space space = Space::enumerate(spec, Shape{{1LL << 28}}, DeviceLimits{});
    for (const Config& c : space.configs()) {
      if (!binaries.insert(spec.defines(c)).second) continue;
      if (std::string(name) == "poly_pipeline" && binaries.size() > 2) continue;  // the heavy one: a sample
      const CompileOutput out = compile_config(spec, c, "sm_90");
      EXPECT_TRUE(out.ok) << name << " " << spec.format(c) << ": " << out.log;
      EXPECT_EQ(out.spill_bytes, 0) << name << " " << spec.format(c);
    }
    EXPECT_EQ(binaries.size(), 12u) << name;
  }
}

TEST(PipelineCli, SpaceCountsTheBuiltInPipeline) {
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_pipeline_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto out = test::run_tune(dir, "space --kernel saxpy_pipeline --shape 1000003");
  EXPECT_EQ(out.code, 0) << out.err;
  EXPECT_NE(out.out.find("84 valid configurations of saxpy_pipeline"), std::string::npos) << out.out;
  // tune compile builds each binary once: the chunk and stream counts never reach the compiler.
  const auto compiled = test::run_tune(dir, "compile --kernel saxpy_pipeline");
  EXPECT_EQ(compiled.code, 0) << compiled.err << compiled.out;
  EXPECT_NE(compiled.out.find("12 distinct binaries"), std::string::npos) << compiled.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cutune
