// A lane on another MPI rank: jobs go out as messages, results come back on rank 0's one receiving thread.
#include "cluster/remote_lane.hpp"

#include <chrono>

#include "cutune/error.hpp"
#include "worker/worker_protocol.hpp"

namespace cutune::cluster {
namespace {

const char* kind_name(detail::Job::Kind kind) {
  switch (kind) {
    case detail::Job::Kind::Evaluate: return "evaluate";
    case detail::Job::Kind::Retime: return "retime";
    case detail::Job::Kind::CopyBandwidth: return "copy";
  }
  return "evaluate";
}

// Job numbers, distinct over every remote lane of the process (lanes are made afresh after a failed shape).
std::atomic<std::uint64_t> next_seq{0};

}  // namespace

RemoteRegistry::RemoteRegistry(Transport& transport) : transport_(transport), thread_([this] { listen(); }) {}

RemoteRegistry::~RemoteRegistry() {
  quit_ = true;
  thread_.join();
}

void RemoteRegistry::add(int rank, RemoteLane* lane) {
  std::lock_guard lock(mutex_);
  lanes_[rank] = lane;
}

void RemoteRegistry::remove(int rank) {
  std::lock_guard lock(mutex_);
  lanes_.erase(rank);
}

// Polls instead of blocking in MPI_Probe, so that the thread ends when asked; results take milliseconds or more to
// measure, so a short sleep between empty polls costs nothing.
void RemoteRegistry::listen() {
  while (!quit_) {
    std::optional<Envelope> message;
    try {
      message = transport_.poll();
    } catch (const std::exception&) {
      message.reset();  // a broken rank: mpirun ends the job, and rank 0's SIGTERM path reports it
    }
    if (!message) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    if (message->tag != Tag::Result) continue;
    std::lock_guard lock(mutex_);
    if (auto it = lanes_.find(message->source); it != lanes_.end()) it->second->answered(message->body);
  }
}

RemoteLane::RemoteLane(std::size_t id, int rank, std::string name, bool compiles_itself, RemoteRegistry& registry,
                       detail::Outbox& outbox)
    : id_(id), rank_(rank), name_(std::move(name)), compiles_itself_(compiles_itself), registry_(registry),
      outbox_(outbox) {
  registry_.add(rank_, this);
}

RemoteLane::~RemoteLane() { registry_.remove(rank_); }

void RemoteLane::submit(detail::Job job) {
  std::lock_guard lock(mutex_);
  Transport& transport = registry_.transport();
  try {
    if (prepared_ != job.task->id) {
      const KernelSpec& spec = *job.task->spec;
      if (spec.json.empty()) throw Error("spec " + spec.name + " has no JSON text, so another rank cannot rebuild it");
      transport.send(rank_, Tag::Prepare,
                     {{"task", job.task->id}, {"spec", spec.json}, {"source", spec.source},
                      {"source_name", spec.source_name}, {"folder", spec.folder.string()},
                      {"shape", job.task->shape.dims}, {"flush", to_string(job.task->flush)}});
      prepared_ = job.task->id;
    }
    sent_ = ++next_seq;
    Message body = {{"seq", sent_}, {"task", job.task->id}, {"kind", kind_name(job.kind)}, {"index", job.index},
                    {"config", job.task->spec->format(job.config)}, {"best_ms", job.best_ms},
                    {"repeats", job.repeats}, {"bytes", job.bytes}};
    // What rank 0's compile pool compiled travels with the job (a failed compile with its log): that rank need not
    // compile it again.
    if (job.compiled) body["compiled"] = detail::to_message(*job.compiled);
    transport.send(rank_, Tag::Job, body);
    job_ = std::move(job);
  } catch (const std::exception& e) {
    detail::LaneOutcome out;
    out.lane = id_;
    out.failure = name_ + ": " + e.what();
    out.error = std::current_exception();
    out.job = std::move(job);
    outbox_.post(std::move(out));
  }
}

void RemoteLane::answered(const Message& body) {
  std::lock_guard lock(mutex_);
  // An answer to another job: one sent by an earlier lane for this rank (a tuner that restarted its lanes).
  if (!job_ || body.value("seq", std::uint64_t{0}) != sent_) return;
  detail::LaneOutcome out;
  out.lane = id_;
  out.job = std::move(*job_);
  job_.reset();
  out.prepare_s = body.value("prepare_s", 0.0);
  out.measure_s = body.value("measure_s", 0.0);
  if (const std::string failure = body.value("failure", std::string()); !failure.empty()) {
    out.failure = name_ + ": " + failure;
    out.error = std::make_exception_ptr(Error(out.failure));
  } else if (body.value("interrupted", false)) {
    out.interrupted = true;
  } else if (body.contains("result")) {
    out.result = detail::result_from_message(body.at("result"));
  } else {
    out.gbs = body.value("gbs", 0.0);
  }
  outbox_.post(std::move(out));
}

}  // namespace cutune::cluster
