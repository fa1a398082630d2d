// Tests of the Kernel Tuner cache reader on small plain, gzipped, truncated and malformed files.
#include "cutune/kt_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cutune/error.hpp"

namespace {

namespace fs = std::filesystem;
using cutune::InputError;
using cutune::KtCache;

// Three configurations in Kernel Tuner's layout: one record per line, a failure stored as the time.
const std::string kCache = R"json({
"device_name": "NVIDIA Test GPU",
"kernel_name": "scale",
"problem_size": [4096, 2048],
"tune_params_keys": ["block_size_x", "use_shmem", "ratio"],
"tune_params": {"block_size_x": [32, 64, 128], "use_shmem": [false, true], "ratio": [0.5, 1.0]},
"objective": "time",
"cache": {
"32,False,0.5": {"block_size_x": 32, "use_shmem": false, "ratio": 0.5, "time": 2.5, "times": [2.4, 2.6], "compile_time": 120.0},
"64,True,1.0": {"block_size_x": 64, "use_shmem": true, "ratio": 1.0, "time": 1.25, "times": [1.2, 1.3]},
"128,True,0.5": {"block_size_x": 128, "use_shmem": true, "ratio": 0.5, "time": "RuntimeFailedConfig", "times": []}
}
}
)json";

class KtCacheFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cutune_kt_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  fs::path write_gz(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    gzFile out = gzopen(p.c_str(), "wb");
    EXPECT_NE(out, nullptr);
    EXPECT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
    return p;
  }
  std::string error_of(const fs::path& p) {
    try {
      cutune::read_kt_cache(p);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

void expect_contents(const KtCache& c) {
  EXPECT_EQ(c.device_name, "NVIDIA Test GPU");
  EXPECT_EQ(c.kernel_name, "scale");
  EXPECT_EQ(c.problem_size, (std::vector<std::int64_t>{4096, 2048}));
  EXPECT_EQ(c.objective, "time");
  EXPECT_FALSE(c.truncated);
  EXPECT_EQ(c.parameter_names(), (std::vector<std::string>{"block_size_x", "use_shmem", "ratio"}));
  ASSERT_EQ(c.parameters.size(), 3u);
  EXPECT_EQ(c.parameters[0].values, (std::vector<cutune::Value>{32, 64, 128}));
  EXPECT_EQ(c.parameters[1].values, (std::vector<cutune::Value>{0, 1}));
  EXPECT_EQ(c.parameters[2].values, (std::vector<cutune::Value>{0.5, 1.0}));
  ASSERT_EQ(c.records.size(), 3u);
  // Records come ordered by key text: "128,...", "32,...", "64,...".
  const auto& failed = c.records[0];
  EXPECT_EQ(failed.config.values, (std::vector<cutune::Value>{128, 1, 0.5}));
  EXPECT_FALSE(failed.time_ms);
  EXPECT_EQ(failed.failure, "RuntimeFailedConfig");
  const auto& slow = c.records[1];
  EXPECT_EQ(slow.config.values, (std::vector<cutune::Value>{32, 0, 0.5}));
  ASSERT_TRUE(slow.time_ms);
  EXPECT_DOUBLE_EQ(*slow.time_ms, 2.5);
  EXPECT_TRUE(slow.failure.empty());
  EXPECT_EQ(slow.times_ms, (std::vector<double>{2.4, 2.6}));
  ASSERT_TRUE(slow.compile_time_ms);
  EXPECT_DOUBLE_EQ(*slow.compile_time_ms, 120.0);
  EXPECT_DOUBLE_EQ(*c.records[2].time_ms, 1.25);
  EXPECT_FALSE(c.records[2].compile_time_ms);
}

TEST_F(KtCacheFile, PlainJson) { expect_contents(cutune::read_kt_cache(write("c.json", kCache))); }

TEST_F(KtCacheFile, GzippedJson) { expect_contents(cutune::read_kt_cache(write_gz("c.json.gz", kCache))); }

TEST_F(KtCacheFile, InterruptedRunIsClosed) {
  // An interrupted run leaves the last record followed by "},"; a partly written line after it is dropped too.
  const std::size_t last = kCache.rfind("\"128,True,0.5\"");
  const std::string cut = kCache.substr(0, last);
  for (const std::string& text : {cut, cut + "\"128,True,0.5\": {\"block_si"}) {
    const KtCache c = cutune::read_kt_cache(write_gz("cut.json.gz", text));
    EXPECT_TRUE(c.truncated);
    EXPECT_EQ(c.records.size(), 2u);
  }
}

TEST_F(KtCacheFile, ValuesFromKeyWhenFieldsAreMissing) {
  const std::string text = R"json({"tune_params_keys": ["a", "b"],
    "cache": {"1,2.5": {"time": 3.0}, "4,True": {"time": "CompilationFailedConfig"}}})json";
  const KtCache c = cutune::read_kt_cache(write("k.json", text));
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[0].config.values, (std::vector<cutune::Value>{1, 2.5}));
  EXPECT_EQ(c.records[1].config.values, (std::vector<cutune::Value>{4, 1}));
  EXPECT_EQ(c.records[1].failure, "CompilationFailedConfig");
  // Without tune_params the grid is what the records use, ascending.
  EXPECT_EQ(c.parameters[0].values, (std::vector<cutune::Value>{1, 4}));
  EXPECT_EQ(c.parameters[1].values, (std::vector<cutune::Value>{1, 2.5}));
  EXPECT_TRUE(c.device_name.empty());
  EXPECT_TRUE(c.problem_size.empty());
}

TEST_F(KtCacheFile, ClearErrorsNamingTheFile) {
  const fs::path missing = dir_ / "missing.json";
  EXPECT_NE(error_of(missing).find(missing.string() + ": no such file"), std::string::npos) << error_of(missing);
  EXPECT_NE(error_of(dir_).find("is a directory"), std::string::npos) << error_of(dir_);
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"this is not json", "not a Kernel Tuner cache"},
      {"[1, 2]", "top level is not a JSON object"},
      {R"({"cache": {}})", "no tune_params_keys"},
      {R"({"tune_params_keys": ["a"]})", "no cache object"},
      {R"({"tune_params_keys": ["a"], "cache": {"1": {"a": 1}}})", "record '1' has no time"},
      {R"({"tune_params_keys": ["a"], "cache": {"1": {"a": 1, "time": null}}})", "neither a number nor a failure"},
      {R"({"tune_params_keys": ["a"], "cache": {"x": {"a": "float", "time": 1.0}}})", "values are numbers"},
      {R"({"tune_params_keys": ["a"], "tune_params": {"b": [1]}, "cache": {}})", "no list of values for a"},
  };
  for (const auto& c : cases) {
    const fs::path p = write("bad.json", c.text);
    const std::string e = error_of(p);
    EXPECT_NE(e.find(p.string()), std::string::npos) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << c.text << " -> " << e;
  }
}

}  // namespace
