// Runs the built `tune` binary for the host tests of the command line, capturing its exit code and output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace cutune::test {

struct CommandOutput {
  int code = 0;
  std::string out;
  std::string err;
};

/// Runs `tune ARGS` with `dir` as the working directory; stdout and stderr go through files in `dir`.
inline CommandOutput run_tune(const std::filesystem::path& dir, const std::string& args) {
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "cd '" + dir.string() + "' && '" + CUTUNE_TUNE_EXE + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

/// A test that runs `tune` in a temporary folder of its own (named after the test, removed afterwards).
class TuneCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cutune_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  CommandOutput tune(const std::string& args) { return run_tune(dir_, args); }

  std::filesystem::path dir_;
};

}  // namespace cutune::test
