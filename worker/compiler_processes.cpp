// Compiler processes lent to compile threads, and what such a process does.
#include "compiler_processes.hpp"

#include <memory>
#include <mutex>
#include <vector>

#include "cutune/error.hpp"
#include "worker_client.hpp"
#include "base/log.hpp"
#include "worker_process.hpp"

namespace cutune::detail {
namespace {

Message to_message(const NvrtcRequest& r) {
  return {{"op", "nvrtc"}, {"source", r.source}, {"source_name", r.source_name}, {"names", r.names},
          {"options", r.options}, {"arch", r.arch}};
}

NvrtcRequest request_from_message(const Message& m) {
  return {m.at("source").get<std::string>(), m.at("source_name").get<std::string>(),
          m.at("names").get<std::vector<std::string>>(), m.at("options").get<std::vector<std::string>>(),
          m.at("arch").get<std::string>()};
}

Message to_message(const NvrtcOutput& o) {
  return {{"ok", o.ok},
          {"cubin", Message::binary(std::vector<std::uint8_t>(o.cubin.begin(), o.cubin.end()))},
          {"log", o.log},
          {"lowered_names", o.lowered_names}};
}

NvrtcOutput output_from_message(const Message& m) {
  NvrtcOutput o;
  o.ok = m.at("ok").get<bool>();
  const auto& bytes = m.at("cubin").get_binary();
  o.cubin.assign(bytes.begin(), bytes.end());
  o.log = m.at("log").get<std::string>();
  o.lowered_names = m.at("lowered_names").get<std::vector<std::string>>();
  return o;
}

// The idle processes, shared by the factory and every runner it lent.
class Stash {
 public:
  explicit Stash(std::string executable) : executable_(std::move(executable)) {}

  std::unique_ptr<WorkerProcess> take() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        auto process = std::move(idle_.back());
        idle_.pop_back();
        return process;
      }
    }
    return fresh();
  }

  std::unique_ptr<WorkerProcess> fresh() const {
    return std::make_unique<WorkerProcess>(executable_, std::vector<std::string>{"--compiler"},
                                           "the compiler process");
  }

  void give_back(std::unique_ptr<WorkerProcess> process) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(process));
  }

 private:
  std::string executable_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<WorkerProcess>> idle_;
};

class ProcessRunner final : public NvrtcRunner {
 public:
  explicit ProcessRunner(std::shared_ptr<Stash> stash) : stash_(std::move(stash)) {}
  ~ProcessRunner() override {
    if (process_) stash_->give_back(std::move(process_));
  }

  // A process killed from outside (an operator, the OOM killer) says nothing about the source: the compile runs once
  // more in another process, and is marked interrupted, not failed, if that one is killed too.
  NvrtcOutput run(const NvrtcRequest& request) override {
    ProcessEnd killed;
    NvrtcOutput out = attempt(request, killed);
    if (!killed.killed_from_outside()) return out;
    logger()->warn("{} from outside while compiling; compiling it again in another one", killed.text);
    killed = {};
    process_ = stash_->fresh();  // not an idle one, which the same kill may have reached
    out = attempt(request, killed);
    if (killed.killed_from_outside()) {
      out.interrupted = true;
      out.log = killed.text + " from outside while compiling this source, also when tried again in another one: not "
                "the source's fault; a resume tries it again";
    }
    return out;
  }

 private:
  NvrtcOutput attempt(const NvrtcRequest& request, ProcessEnd& ended) {
    if (!process_) process_ = stash_->take();
    Message reply;
    // A compile is not interrupted: Ctrl-C stops the run after it, as it does an in-process compile.
    const ReadOutcome outcome = process_->send(to_message(request)) ? process_->receive(-1.0, reply, false)
                                                                    : ReadOutcome::Closed;
    if (outcome == ReadOutcome::Message) {
      if (reply.contains("error")) throw CudaError(reply.at("error").get<std::string>());
      return output_from_message(reply);
    }
    ended = process_->end();
    process_.reset();
    NvrtcOutput failed;
    failed.log = ended.text + " compiling this source (NVRTC crashed on it); the next compile starts another";
    return failed;
  }


  std::shared_ptr<Stash> stash_;
  std::unique_ptr<WorkerProcess> process_;
};

}  // namespace

NvrtcRunnerFactory make_compiler_processes(const std::string& worker_executable) {
  auto stash = std::make_shared<Stash>(worker_executable);
  return [stash]() -> std::unique_ptr<NvrtcRunner> { return std::make_unique<ProcessRunner>(stash); };
}

Message answer_compile_request(const Message& request) {
  try {
    if (request.at("op").get<std::string>() != "nvrtc") throw Error("a compiler process answers nvrtc requests only");
    return to_message(nvrtc_compile_here(request_from_message(request)));
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

NvrtcRunnerFactory compiler_processes_if_found() {
  const std::string worker = find_worker_executable();
  return worker.empty() ? NvrtcRunnerFactory{} : make_compiler_processes(worker);
}

int compiler_main(int in, int out) {
  for (;;) {
    Message request;
    if (read_message(in, -1.0, {}, request) != ReadOutcome::Message) return 0;  // the tuner is gone
    if (!write_message(out, answer_compile_request(request))) return 0;
  }
}

}  // namespace cutune::detail
