// Several processes writing one database at once (fork): nothing is lost, and a version-1 file migrates once.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <vector>

#include "cutune/error.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

// Runs `body` in `n` child processes started together; returns how many exited with status 0. A child never
// returns into the test runner: it leaves with _exit, whatever happens.
int run_processes(int n, const std::function<void(int)>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  std::vector<pid_t> children;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[1]);
      char go = 0;
      // Every child waits for the starting signal, so that their writes overlap.
      const bool started = ::read(pipe_fds[0], &go, 1) == 1;
      int code = started ? 0 : 3;
      try {
        if (started) body(i);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "process %d: %s\n", i, e.what());
        code = 1;
      }
      ::_exit(code);
    }
    if (pid > 0) children.push_back(pid);
  }
  ::close(pipe_fds[0]);
  const std::string go(children.size(), 'g');
  const bool signalled = ::write(pipe_fds[1], go.data(), go.size()) == static_cast<ssize_t>(go.size());
  ::close(pipe_fds[1]);
  int succeeded = 0;
  for (const pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    succeeded += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return signalled ? succeeded : -1;
}

constexpr int kProcesses = 6;
constexpr int kEach = 40;

class DbConcurrencyTest : public TempDirTest {};

TEST_F(DbConcurrencyTest, ProcessesWritingAtOnceLoseNothing) {
  const fs::path file = path("shared.db");
  const DeviceIdentity device = synthetic_device("NVIDIA H200", 9, 0, 132);
  const KernelIdentity kernel{"gemm", "cccccccccccccccc"};
  // The processes also create the file together: the schema must come out once.
  const int ok = run_processes(kProcesses, [&](int worker) {
    Database db(file);
    const auto run = db.begin_run(device, kernel, "worker " + std::to_string(worker));
    for (int i = 0; i < kEach; ++i) {
      db.record(run, "1024x1024", ok_result("W=" + std::to_string(worker) + ",I=" + std::to_string(i), 1.0 + i));
      if (i % 10 == 0) db.best({kernel.name, kernel.hash, device, "1024x1024"});
    }
  });
  EXPECT_EQ(ok, kProcesses);
  Database db(file);
  EXPECT_EQ(db.measured(device, kernel, "1024x1024").size(), static_cast<std::size_t>(kProcesses * kEach));
  const DatabaseStats stats = db.stats();
  EXPECT_EQ(stats.runs, kProcesses);
  EXPECT_EQ(stats.measurements, kProcesses * kEach);
  EXPECT_EQ(db.best({kernel.name, kernel.hash, device, "1024x1024"})->result.median_ms, 1.0);
}

TEST_F(DbConcurrencyTest, ProcessesOpeningAVersion1FileMigrateItOnce) {
  const fs::path file = path("v1.db");
  write_version1_database(file);
  const DeviceIdentity device = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const KernelIdentity kernel{"gemm", "abc123"};
  const int ok = run_processes(4, [&](int worker) {
    Database db(file);
    db.record(db.begin_run(device, kernel, "worker"), "1024x1024", ok_result("W=" + std::to_string(worker), 3.0));
  });
  EXPECT_EQ(ok, 4);
  Database db(file);
  EXPECT_EQ(db.results(device, kernel, "1024x1024").size(), 7u);  // 3 migrated + one per process
  EXPECT_EQ(db.stats().runs, 6);
  SQLite::Database raw(file.string());
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), std::to_string(Database::kSchemaVersion));
}

}  // namespace
}  // namespace cutune::testing
