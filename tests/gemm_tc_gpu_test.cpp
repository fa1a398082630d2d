// GPU tests of the tensor-core GEMM templates: a sample of each space is correct on odd shapes, with beta = 0 (C is
// never read: it starts as NaN) and with alpha, beta != 0 (C is read and scaled); a kernel that skips one k-slab fails.
#include <gtest/gtest.h>

#include <cstdio>
#include <future>
#include <map>
#include <nlohmann/json.hpp>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "gpu_support.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

const std::vector<std::string> kKernels = {"gemm_tf32", "gemm_bf16", "gemm_f16"};
const char* const kShapes[] = {"1x1x1", "127x257x511", "33x4096x7", "4096x16x4096"};

// The spec edited as JSON (keeps the parameter order): alpha = 1.5, beta = 0.5 and C random, or extra defines.
KernelSpec edited(const KernelSpec& spec, bool scaled, const std::string& define = {}) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(spec.json);
  if (scaled) {
    for (auto& arg : j["arguments"]) {
      if (arg["name"] == "alpha") arg["value"] = 1.5;
      if (arg["name"] == "beta") arg["value"] = 0.5;
      if (arg["name"] == "C") arg["fill"] = "random";
    }
  }
  if (!define.empty()) j["compile_options"].push_back(define);
  return KernelSpec::from_json(j.dump(), spec.source, spec.source_name);
}

// Compiles configurations once each, in parallel, keyed by their printed form.
class Compiled {
 public:
  Compiled(const KernelSpec& spec, std::string arch) : spec_(spec), arch_(std::move(arch)) {}
  void add(const std::vector<Config>& configs) {
    for (const auto& c : configs) {
      const std::string key = spec_.format(c);
      if (futures_.count(key) || done_.count(key)) continue;
      futures_.emplace(key, pool_.submit([this, c] { return compile_config(spec_, c, arch_); }));
    }
  }
  const CompileOutput& get(const Config& c) {
    const std::string key = spec_.format(c);
    auto it = done_.find(key);
    if (it != done_.end()) return it->second;
    return done_.emplace(key, futures_.at(key).get()).first->second;
  }

 private:
  const KernelSpec& spec_;
  std::string arch_;
  CompilePool pool_;
  std::map<std::string, std::future<CompileOutput>> futures_;
  std::map<std::string, CompileOutput> done_;
};

TEST(GemmTcGpu, SampleIsCorrectOnOddShapes) {
  REQUIRE_GPU();
  Device device;
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    const KernelSpec scaled = edited(spec, true);
    Compiled compiled(spec, device.identity().arch());
    std::map<std::string, std::vector<Config>> samples;
    for (const char* text : kShapes) {
      const Space space = Space::enumerate(spec, spec.parse_shape(text), device.limits());
      samples[text] = testing::sample_space(spec, space, 48);
      compiled.add(samples[text]);
    }
    for (const KernelSpec* s : {&spec, &scaled}) {
      for (const char* text : kShapes) {
        const Shape shape = s->parse_shape(text);
        Workbench bench(device, *s, shape, testing::quick_measure());
        int ok = 0;
        double worst = 0.0;
        for (const auto& c : samples[text]) {
          const CompileOutput& out = compiled.get(c);
          ASSERT_TRUE(out.ok) << s->format(c) << "\n" << out.log;
          const Result r = bench.evaluate(c, out);
          EXPECT_EQ(r.status, Status::Ok) << name << " " << text << " " << r.config << ": " << r.message;
          ok += r.status == Status::Ok;
          worst = std::max(worst, r.max_error);
        }
        ASSERT_TRUE(bench.usable());
        EXPECT_EQ(ok, static_cast<int>(samples[text].size())) << name << " " << text;
        std::printf("%s %s %-13s %zu configurations correct, largest error %.3g (atol %.3g)\n", name.c_str(),
                    s == &spec ? "beta=0  " : "beta=0.5", text, samples[text].size(), worst,
                    s->tolerance_at(shape).atol);
      }
    }
  }
}

// One k-slab left out (a test-only define): verification must fail for every configuration, split or not.
TEST(GemmTcGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    // 33x4096x7 has one slab: it is the one left out.
    for (const auto& [text, slab] : {std::pair{"127x257x511", 1}, {"4096x16x4096", 1}, {"33x4096x7", 0}}) {
      const KernelSpec broken = edited(spec, false, "-DCUTUNE_TEST_SKIP_SLAB=" + std::to_string(slab));
      const Shape shape = spec.parse_shape(text);
      const Space space = Space::enumerate(spec, shape, device.limits());
      const std::vector<Config> sample = testing::sample_space(spec, space, 24);
      Compiled compiled(broken, device.identity().arch());
      compiled.add(sample);
      Workbench bench(device, broken, shape, testing::quick_measure());
      double smallest = 1e300;
      int wrong = 0;
      for (const auto& c : sample) {
        const Result r = bench.evaluate(c, compiled.get(c));
        EXPECT_EQ(r.status, Status::WrongResult) << name << " " << text << " " << r.config << ": " << r.message;
        wrong += r.status == Status::WrongResult;
        smallest = std::min(smallest, r.max_error);
      }
      std::printf("%s %-13s slab %d skipped: %d of %zu wrong, smallest largest-error %.3g (atol %.3g)\n", name.c_str(),
                  text, slab, wrong, sample.size(), smallest, spec.tolerance_at(shape).atol);
    }
  }
}

}  // namespace
}  // namespace cutune
