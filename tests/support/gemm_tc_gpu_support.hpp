// What the tensor-core GEMMs' GPU tests share: the spec edited for a scaled or broken run, compiles of samples, and the check
// that every configuration of a sample is correct.
#pragma once

#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"
#include "cutune/templates.hpp"
#include "gpu_support.hpp"
#include "space_sample.hpp"

namespace cutune::testing {

// The spec edited as JSON (keeps the parameter order): alpha = 1.5, beta = 0.5 and C random, or extra defines.
inline KernelSpec edited(const KernelSpec& spec, bool scaled, const std::string& define = {}) {
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

// Compiles configurations once each (a shape-specialized one once per shape), in parallel, keyed by their printed form.
class Compiled {
 public:
  Compiled(const KernelSpec& spec, std::string arch) : spec_(spec), arch_(std::move(arch)) {}
  /// Starts the compiles of `configs` at `shape`.
  void add(const std::vector<Config>& configs, const Shape& shape) {
    for (const auto& c : configs) {
      const std::string key = key_of(c, shape);
      if (futures_.count(key) || done_.count(key)) continue;
      futures_.emplace(key, pool_.submit([this, c, shape] { return compile_config(spec_, c, arch_, &shape); }));
    }
  }
  /// The binary of `c` at `shape` (compiled now when add() was not told of it).
  const CompileOutput& get(const Config& c, const Shape& shape) {
    const std::string key = key_of(c, shape);
    if (auto it = done_.find(key); it != done_.end()) return it->second;
    if (!futures_.count(key)) add({c}, shape);
    return done_.emplace(key, futures_.at(key).get()).first->second;
  }

 private:
  std::string key_of(const Config& c, const Shape& shape) const {
    return spec_.shape_specialized(c) ? spec_.format(c) + "@" + shape.str() : spec_.format(c);
  }

  const KernelSpec& spec_;
  std::string arch_;
  CompilePool pool_;
  std::map<std::string, std::future<CompileOutput>> futures_;
  std::map<std::string, CompileOutput> done_;
};

// Each shape's sample (compiled by `compiled`) is correct with beta = 0 (C never read: it starts as NaN) and with
// alpha = 1.5, beta = 0.5 (C read and scaled); one line per shape says how many and the largest error.
inline void expect_samples_correct(const Device& device, const KernelSpec& spec, Compiled& compiled,
                                   const std::map<std::string, std::vector<Config>>& samples) {
  const KernelSpec scaled = edited(spec, true);
  for (const KernelSpec* s : {&spec, &scaled}) {
    for (const auto& [text, sample] : samples) {
      const Shape shape = s->parse_shape(text);
      Workbench bench(device, *s, shape, quick_measure());
      int ok = 0;
      double worst = 0.0;
      for (const auto& c : sample) {
        const CompileOutput& out = compiled.get(c, shape);
        ASSERT_TRUE(out.ok) << s->format(c) << "\n" << out.log;
        const Result r = bench.evaluate(c, out);
        EXPECT_EQ(r.status, Status::Ok) << spec.name << " " << text << " " << r.config << ": " << r.message;
        ok += r.status == Status::Ok;
        worst = std::max(worst, r.max_error);
      }
      ASSERT_TRUE(bench.usable());
      EXPECT_EQ(ok, static_cast<int>(sample.size())) << spec.name << " " << text;
      std::printf("%s %s %-15s %zu configurations correct, largest error %.3g (atol %.3g)\n", spec.name.c_str(),
                  s == &spec ? "beta=0  " : "beta=0.5", text.c_str(), sample.size(), worst,
                  s->tolerance_at(shape).atol);
    }
  }
}

// The spec built with k-slab `slab` left out (a test-only define): every configuration of `sample` must fail
// verification at `shape` (`label` names the case in a failure). How many did, and the smallest largest-error.
struct MissingSlab {
  int wrong = 0;
  double smallest_error = 1e300;
};
inline MissingSlab expect_missing_slab_wrong(const Device& device, const KernelSpec& spec, const Shape& shape, int slab,
                                             const std::vector<Config>& sample, const std::string& label) {
  const KernelSpec broken = edited(spec, false, "-DCUTUNE_TEST_SKIP_SLAB=" + std::to_string(slab));
  Compiled compiled(broken, device.identity().arch());
  compiled.add(sample, shape);
  Workbench bench(device, broken, shape, quick_measure());
  MissingSlab out;
  for (const auto& c : sample) {
    const Result r = bench.evaluate(c, compiled.get(c, shape));
    EXPECT_EQ(r.status, Status::WrongResult) << label << " " << r.config << ": " << r.message;
    out.wrong += r.status == Status::WrongResult;
    out.smallest_error = std::min(out.smallest_error, r.max_error);
  }
  return out;
}

// A sample of 16 configurations of `kernel` where `where` holds, at each shape (compiled for it where the configuration
// is shape-specialized), every one correct with beta 0 and with alpha 1.5, beta 0.5; skipped where no configuration
// runs on this GPU (the wgmma and FP8 paths without sm_90a).
inline void expect_subspace_correct(const char* kernel, const std::string& where, const std::vector<const char*>& shapes) {
  Device device;
  KernelSpec spec = load_kernel(kernel);
  spec.restrict_to(where);
  Compiled compiled(spec, device.identity().arch());
  std::map<std::string, std::vector<Config>> samples;
  for (const char* text : shapes) {
    const Shape shape = spec.parse_shape(text);
    std::vector<Config> sample = sample_configs(spec, Space::enumerate(spec, shape, device.limits()).configs(), 16);
    if (sample.empty()) continue;
    compiled.add(sample, shape);
    samples[text] = std::move(sample);
  }
  if (samples.empty()) GTEST_SKIP() << spec.name << " has no configuration on " << device.identity().arch();
  expect_samples_correct(device, spec, compiled, samples);
}

}  // namespace cutune::testing
