// GPU tests of the SGEMM template: a sample of its space (every value of every parameter) is correct on odd
// shapes, with beta = 0 (C is never read: it starts as NaN) and with alpha, beta != 0 (C is read and scaled).
#include <gtest/gtest.h>

#include <future>
#include <nlohmann/json.hpp>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "gpu_support.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

// The built-in spec with alpha = 1.5, beta = 0.5 and C filled with random values (restored before each run).
KernelSpec scaled_spec(const KernelSpec& gemm) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(gemm.json);  // keeps the parameter order
  for (auto& arg : j["arguments"]) {
    if (arg["name"] == "alpha") arg["value"] = 1.5;
    if (arg["name"] == "beta") arg["value"] = 0.5;
    if (arg["name"] == "C") arg["fill"] = "random";
  }
  return KernelSpec::from_json(j.dump(), gemm.source, gemm.source_name);
}

TEST(GemmGpu, SampleIsCorrectOnOddShapes) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec gemm = load_kernel("gemm");
  const KernelSpec scaled = scaled_spec(gemm);
  const Space space = Space::enumerate(gemm, std::nullopt, device.limits());
  const std::vector<Config> sample = testing::sample_space(gemm, space, 120);
  CompilePool pool;
  std::vector<std::future<CompileOutput>> futures;
  for (const auto& c : sample) {
    futures.push_back(pool.submit([&, c] { return compile_config(gemm, c, device.identity().arch()); }));
  }
  std::vector<CompileOutput> compiled;
  for (auto& f : futures) compiled.push_back(f.get());

  MeasureOptions quick;
  quick.warmup = 0;
  quick.repeats = 1;
  quick.flush = cutune::L2Flush::None;
  for (const KernelSpec* spec : {&gemm, &scaled}) {
    for (const char* text : {"1x1x1", "127x257x511", "33x4096x7", "64x64x4096", "300x201x100"}) {
      const Shape shape = spec->parse_shape(text);
      Workbench bench(device, *spec, shape, quick);
      int ok = 0;
      double worst = 0.0;
      for (std::size_t i = 0; i < sample.size(); ++i) {
        ASSERT_TRUE(compiled[i].ok) << gemm.format(sample[i]) << "\n" << compiled[i].log;
        const Result r = bench.evaluate(sample[i], compiled[i]);
        EXPECT_EQ(r.status, Status::Ok) << text << " " << r.config << ": " << r.message;
        ok += r.status == Status::Ok;
        worst = std::max(worst, r.max_error);
      }
      EXPECT_EQ(ok, static_cast<int>(sample.size())) << text;
      ASSERT_TRUE(bench.usable());
      std::printf("%s %-12s %zu configurations correct, largest error %.3g (tolerance %.3g)\n",
                  spec == &gemm ? "beta=0  " : "beta=0.5", text, sample.size(), worst,
                  spec->tolerance_at(shape).atol);
    }
  }
}

}  // namespace
}  // namespace cutune
