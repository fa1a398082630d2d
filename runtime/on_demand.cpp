// Tuning on demand (on_demand.hpp).
#include "on_demand.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "cutune/error.hpp"
#include "base/programs.hpp"
#include "base/log.hpp"

extern char** environ;

namespace cutune::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kNice = 10;                                 // the CPU priority `tune` runs at
constexpr auto kPoll = std::chrono::milliseconds(20);     // how often the end of `tune` is looked for
constexpr auto kTermGrace = std::chrono::seconds(10);     // from SIGTERM to SIGKILL when the Runtime ends
constexpr std::size_t kLogTail = 2000;                    // characters of a failed run's output in the warning

std::string tail_of(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > kLogTail ? all.substr(all.size() - kLogTail) : all;
}

std::string exit_text(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// Starts `program arguments...` in a process group of its own (a Ctrl-C meant for the application does not reach
// it), its output to `log`; returns its pid.
pid_t spawn(const std::filesystem::path& program, const std::vector<std::string>& arguments,
            const std::filesystem::path& log) {
  std::vector<char*> argv;
  std::string name = program.string();
  argv.push_back(name.data());
  std::vector<std::string> copies = arguments;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int failed = ::posix_spawn(&pid, name.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) throw Error("cannot start " + name + ": " + std::strerror(failed));
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(pid), kNice);  // before it starts its workers and compilers
  return pid;
}

}  // namespace

std::filesystem::path find_tune_program(const std::filesystem::path& asked) {
  if (!asked.empty()) {
    if (::access(asked.c_str(), X_OK) != 0) {
      throw InputError("tuning on demand: the tune program '" + asked.string() + "' is not an executable file");
    }
    return asked;
  }
  std::string found = find_program("tune", "CUTUNE_TUNE");
  if (found.empty()) {
    throw InputError("tuning on demand needs the tune program, which is neither beside this program nor where cutune "
                     "was built or installed: set CUTUNE_TUNE or RuntimeOptions::tune_program to its path");
  }
  return found;
}

std::vector<std::string> tune_arguments(const OnDemandSettings& settings, const TuneJob& job, unsigned cores) {
  std::vector<std::string> args = {"--kernel", job.kernel,
                                   "--shapes", job.shape.str(),
                                   "--budget", std::to_string(settings.budget),
                                   "--db", settings.database.string(),
                                   "--device", std::to_string(settings.device),
                                   "--flush", std::string(to_string(job.flush)),
                                   "--jobs", std::to_string(cores > 1 ? cores / 2 : 1)};
  if (settings.cache_directory.empty()) {
    args.push_back("--no-cache");
  } else {
    args.push_back("--cache-dir");
    args.push_back(settings.cache_directory.string());
  }
  return args;
}

OnDemandTuner::OnDemandTuner(OnDemandSettings settings, Prepare prepare)
    : settings_(std::move(settings)), prepare_(std::move(prepare)), thread_([this] { run(); }) {}

OnDemandTuner::~OnDemandTuner() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.store(true);
  wake_.notify_all();
  thread_.join();
}

std::shared_ptr<TuneJob> OnDemandTuner::submit(std::string kernel, const KernelSpec& spec, const Shape& shape,
                                               L2Flush flush, std::optional<OperationSpec> operation) {
  auto job = std::make_shared<TuneJob>();
  job->kernel = std::move(kernel);
  job->spec = spec;
  job->operation = std::move(operation);
  job->shape = shape;
  job->flush = flush;
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(job);
  }
  wake_.notify_one();
  return job;
}

void OnDemandTuner::run() {
  for (;;) {
    std::shared_ptr<TuneJob> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      tune(*job);
    } catch (const std::exception& e) {
      logger()->warn("runtime: tuning {} at {} on demand failed; the fallback stays: {}", job->name(),
                     job->shape.str(), e.what());
    }
    job->finished.store(true, std::memory_order_release);
  }
}

void OnDemandTuner::tune(TuneJob& job) {
  static std::atomic<int> runs{0};
  const std::filesystem::path log = std::filesystem::temp_directory_path() /
                                    ("cutune-on-demand-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(runs.fetch_add(1)) + ".log");
  const auto start = Clock::now();
  logger()->info("runtime: tuning {} at {} in the background (budget {})", job.name(), job.shape.str(),
                 settings_.budget);
  const pid_t pid = spawn(settings_.program, tune_arguments(settings_, job, std::thread::hardware_concurrency()), log);
  int status = 0;
  std::optional<Clock::time_point> terminated;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (stop_.load() && !terminated) {
      ::kill(pid, SIGTERM);  // tune stores what it measured and stops its workers
      terminated = Clock::now();
    } else if (terminated && Clock::now() - *terminated > kTermGrace) {
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(kPoll);
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok && !stop_.load()) {
    logger()->warn("runtime: `tune` for {} at {} {}; the fallback stays. Its output ends:\n{}", job.name(),
                   job.shape.str(), exit_text(status), tail_of(log));
  }
  std::error_code ignored;
  std::filesystem::remove(log, ignored);
  if (stop_.load()) return;
  job.ready = prepare_(job);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (job.ready) {
    logger()->info("runtime: {} at {} tuned in the background in {:.1f} s: {} {}", job.name(), job.shape.str(),
                   seconds, job.ready->spec().name, job.ready->choice().result.config);
  }
}

}  // namespace cutune::detail
