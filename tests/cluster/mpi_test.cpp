// Host test of tuning across MPI ranks: `mpirun -np 3` of the cluster code on stand-in GPUs (fake workers), NVRTC
// compiling for real on every rank; rank 0's database must hold every configuration once, and a rerun resumes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <future>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "cutune/database.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

#ifdef CUTUNE_MPIEXEC
constexpr std::size_t kSpace = 20;

class MpiTest : public ::testing::Test {
 protected:
  MpiTest() : dir_(fs::temp_directory_path() / ("cutune_mpi_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    ::setenv("CUTUNE_FAKE_LOG", (dir_ / "worker.log").c_str(), 1);
    ::setenv("CUTUNE_FAKE_TIMES", "1", 1);
    ::setenv("CUTUNE_FAKE_SLEEP_MS", "20", 1);  // a pace at which every rank gets some of the work
  }
  void SetUp() override {
    if (!fs::exists(CUTUNE_MPIEXEC)) GTEST_SKIP() << CUTUNE_MPIEXEC << " (found at configure time) is gone";
  }
  ~MpiTest() override {
    for (const char* v : {"CUTUNE_WORKER", "CUTUNE_FAKE_LOG", "CUTUNE_FAKE_TIMES", "CUTUNE_FAKE_SLEEP_MS"}) ::unsetenv(v);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // Runs the three ranks; returns their exit status and what they printed.
  int launch(std::string& output, const std::string& extra = "") const {
    // CI runs as root, which Open MPI refuses unless told; --oversubscribe: more ranks than the CI machine's 2 cores;
    // no single-copy transfers between ranks, which containers often forbid (ptrace rules) and messages this small
    // do not need.
    const std::string command = std::string(CUTUNE_MPIEXEC) +
                                " --allow-run-as-root --oversubscribe --bind-to none"
                                " --mca btl_vader_single_copy_mechanism none -np 3"
                                " -x CUTUNE_WORKER -x CUTUNE_FAKE_LOG -x CUTUNE_FAKE_TIMES -x CUTUNE_FAKE_SLEEP_MS " +
                                CUTUNE_MPI_DRIVER_EXE + " " + (dir_ / "r.db").string() + " " +
                                (dir_ / "cache").string() + " " + extra + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return -1;
    std::array<char, 4096> buffer{};
    output.clear();
    while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
    return ::pclose(pipe);
  }

  // Configuration -> the stand-in GPUs (ordinals = node-local ranks) that evaluated it; re-timing not counted.
  std::map<std::string, std::vector<int>> evaluated() const {
    std::map<std::string, std::vector<int>> out;
    std::ifstream in(dir_ / "worker.log");
    int device = 0;
    std::string kind, config;
    while (in >> device >> kind >> config)
      if (kind == "evaluate") out[config].push_back(device);
    return out;
  }

  std::size_t stored() const {
    DeviceIdentity device;
    device.name = "Stand-in GPU";
    device.cc_major = 9;
    device.sm_count = 132;
    const KernelSpec spec = test::stand_in_kernel("mpi_k", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B");
    Database db(dir_ / "r.db");
    const auto results = db.results(device, {spec.name, spec.hash}, "1000");
    std::set<std::string> configs;
    for (const auto& r : results) configs.insert(r.config);
    EXPECT_EQ(configs.size(), results.size()) << "a configuration stored twice";
    return results.size();
  }

  fs::path dir_;
};

TEST_F(MpiTest, ThreeRanksMeasureEveryConfigurationOnceIntoRankZerosDatabase) {
  std::string output;
  ASSERT_EQ(launch(output), 0) << output;
  EXPECT_NE(output.find("evaluated 20 resumed 0"), std::string::npos) << output;

  // Per rank: what rank 0 counted agrees with what that rank's worker was sent, and the shares add up.
  const auto log = evaluated();
  EXPECT_EQ(log.size(), kSpace);
  std::map<int, std::size_t> per_gpu;
  for (const auto& [config, gpus] : log) {
    EXPECT_EQ(gpus.size(), 1u) << config << " evaluated more than once";
    for (int g : gpus) ++per_gpu[g];
  }
  std::size_t shares = 0;
  const std::regex line(R"(measured (GPU (\d)|rank (\d) GPU (\d)): (\d+))");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it) {
    const int gpu = (*it)[2].matched ? std::stoi((*it)[2]) : std::stoi((*it)[4]);
    const std::size_t measured = std::stoul((*it)[5]);
    EXPECT_EQ(per_gpu[gpu], measured) << (*it)[1];
    shares += measured;
  }
  EXPECT_EQ(shares, kSpace) << output;
  EXPECT_NE(output.find("rank 2 GPU 2"), std::string::npos) << output;

  EXPECT_EQ(stored(), kSpace);

  // The same command again measures nothing: everything is stored.
  const std::size_t lines_before = log.size();
  ASSERT_EQ(launch(output), 0) << output;
  EXPECT_NE(output.find("evaluated 0 resumed 20"), std::string::npos) << output;
  EXPECT_EQ(evaluated().size(), lines_before);
  for (const auto& [config, gpus] : evaluated()) EXPECT_EQ(gpus.size(), 1u) << config << " measured again on resume";
}
// An operation under MPI: rank 0 divides the budget among the implementations in turns, and every turn measures on
// all ranks' GPUs into rank 0's database.
TEST_F(MpiTest, AnOperationsImplementationsAreTunedInTurnsAcrossTheRanks) {
  std::string output;
  ASSERT_EQ(launch(output, "operation"), 0) << output;
  const std::regex implementation(R"(implementation evaluated (\d+) resumed 0)");
  std::vector<std::size_t> evaluated_by;
  for (std::sregex_iterator it(output.begin(), output.end(), implementation), end; it != end; ++it) {
    evaluated_by.push_back(std::stoul((*it)[1]));
  }
  ASSERT_EQ(evaluated_by.size(), 2u) << output;
  EXPECT_GE(evaluated_by[0], 4u);  // the first shares: half the budget, evenly
  EXPECT_GE(evaluated_by[1], 4u);
  EXPECT_EQ(evaluated_by[0] + evaluated_by[1], 16u) << output;
  const auto log = evaluated();
  EXPECT_EQ(log.size(), 16u);
  for (const auto& [config, gpus] : log) EXPECT_EQ(gpus.size(), 1u) << config << " evaluated more than once";
  std::size_t shares = 0;
  const std::regex line(R"(measured (GPU \d|rank \d GPU \d): (\d+))");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it) shares += std::stoul((*it)[2]);
  EXPECT_EQ(shares, 16u) << output;
  EXPECT_NE(output.find("rank 1 GPU 1"), std::string::npos) << output;
}

// A rank that dies ends the job (the launcher's doing); rank 0 stops on the launcher's SIGTERM with what it measured
// stored, and the same command again measures only what is missing.
TEST_F(MpiTest, ARankThatDiesLeavesEverythingMeasuredStoredAndARerunCompletes) {
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "100", 1);
  std::string output;
  auto job = std::async(std::launch::async, [&] { return launch(output); });
  // Rank 2 dies once a few configurations were measured.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (evaluated().size() < 6 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int pid = 0;
  std::ifstream(dir_.string() + "/r.db.rank2.pid") >> pid;
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGKILL);
  EXPECT_NE(job.get(), 0) << output;
  EXPECT_NE(output.find("interrupted: what was measured is stored"), std::string::npos) << output;
  const std::size_t kept = stored();
  EXPECT_GE(kept, 3u);  // six were sent, at most three (one per rank) still in flight
  EXPECT_LT(kept, kSpace);

  ::setenv("CUTUNE_FAKE_SLEEP_MS", "0", 1);
  ASSERT_EQ(launch(output), 0) << output;
  EXPECT_NE(output.find("evaluated " + std::to_string(kSpace - kept) + " resumed " + std::to_string(kept)),
            std::string::npos) << output;
  EXPECT_EQ(stored(), kSpace);
}
// One run keeps one GPU model's results: a job whose ranks have different models is refused, naming them, before
// anything is measured or a database created.
TEST_F(MpiTest, RanksOfDifferentModelsAreRefusedNamingThem) {
  std::string output;
  EXPECT_NE(launch(output, "mixed"), 0) << output;
  EXPECT_NE(output.find("different models (rank 0 has Stand-in GPU (sm_90, 132 SMs), rank 2 has Stand-in GPU (sm_90, "
                        "114 SMs))"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir_ / "r.db"));
  EXPECT_TRUE(evaluated().empty());
}
#else
TEST(MpiTest, ThreeRanksMeasureEveryConfigurationOnceIntoRankZerosDatabase) {
  GTEST_SKIP() << "built without MPI (no mpirun found by CMake): install libopenmpi-dev openmpi-bin";
}
#endif

}  // namespace
}  // namespace cutune
