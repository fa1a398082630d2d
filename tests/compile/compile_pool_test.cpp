// Host-only tests of the compile pool's order: what a search asked for starts before compiles ahead of it.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"

namespace cutune {
namespace {

TEST(CompilePool, ASpareJobWaitsForTheJobsSubmittedAfterIt) {
  CompilePool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::mutex mutex;
  std::vector<std::string> order;
  const auto job = [&](std::string name) {
    return [&, name] {
      std::lock_guard lock(mutex);
      order.push_back(name);
      return CompileOutput{};
    };
  };
  std::promise<void> started;
  auto blocker = pool.submit([&] {
    started.set_value();
    released.wait();  // the only thread is busy while the others are submitted
    return CompileOutput{};
  });
  started.get_future().wait();
  auto spare = pool.submit_spare(job("ahead"));
  auto first = pool.submit(job("asked 1"));
  auto second = pool.submit(job("asked 2"));
  release.set_value();
  blocker.get(), spare.get(), first.get(), second.get();
  EXPECT_EQ(order, (std::vector<std::string>{"asked 1", "asked 2", "ahead"}));
}

}  // namespace
}  // namespace cutune
