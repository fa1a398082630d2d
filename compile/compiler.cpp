// The compile pool: every core compiles a configuration of its own, each thread through its own compiler process when
// the pool has runners (NVRTC is thread-safe per program, but its threads in one process wait for each other).
#include "cutune/compiler.hpp"

#include <sched.h>

#include <algorithm>

#include "nvrtc.hpp"

namespace cutune {

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

CompilePool::CompilePool(unsigned threads, detail::NvrtcRunnerFactory runners) : runners_(std::move(runners)) {
  if (threads == 0) threads = usable_cpus();
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();  // abandoned jobs: their futures report broken_promise
    spare_queue_.clear();
  }
  ready_.notify_all();
  for (auto& worker : workers_) worker.join();
}

std::future<CompileOutput> CompilePool::submit(std::function<CompileOutput()> job) {
  return enqueue(std::move(job), queue_);
}

std::future<CompileOutput> CompilePool::submit_spare(std::function<CompileOutput()> job) {
  return enqueue(std::move(job), spare_queue_);
}

std::future<CompileOutput> CompilePool::enqueue(std::function<CompileOutput()> job,
                                                std::deque<std::packaged_task<CompileOutput()>>& queue) {
  std::packaged_task<CompileOutput()> task(std::move(job));
  auto future = task.get_future();
  {
    std::lock_guard lock(mutex_);
    queue.push_back(std::move(task));
  }
  ready_.notify_one();
  return future;
}

void CompilePool::work() {
  const detail::RunnersForThisThread runners(&runners_);
  for (;;) {
    std::packaged_task<CompileOutput()> task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty() || !spare_queue_.empty(); });
      if (stopping_) return;
      auto& from = queue_.empty() ? spare_queue_ : queue_;
      task = std::move(from.front());
      from.pop_front();
    }
    task();
  }
}

}  // namespace cutune
