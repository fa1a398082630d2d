// A rank other than 0: measures on its own GPU what rank 0 sends, one job at a time, until told to stop; compiles what
// rank 0 sends without a binary.
#include <chrono>
#include <map>

#include "cluster/cluster.hpp"
#include "cluster/device_message.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "measure/evaluator.hpp"
#include "worker/worker_client.hpp"
#include "worker/worker_protocol.hpp"
#include "base/log.hpp"

namespace cutune::cluster {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The L2 convention the tuning rank resolved for the shape.
L2Flush flush_of(const Message& prepare) {
  const auto flush = parse_l2_flush(prepare.at("flush").get<std::string>());
  if (!flush) throw InputError("unknown L2 convention in a prepare message: " + prepare.at("flush").dump());
  return *flush;
}

struct Task {
  KernelSpec spec;
  Shape shape;
  L2Flush flush = L2Flush::Read;
};

// Does one job; what a lane would post, as a message.
Message run_job(detail::Evaluator& evaluator, CubinCache* cache, const std::string& arch, const Task& task,
                const Message& job) {
  const std::string kind = job.at("kind").get<std::string>();
  if (kind == "copy") return {{"gbs", evaluator.copy_bandwidth(job.at("bytes").get<std::int64_t>())}};
  const Config config = task.spec.parse_config(job.at("config").get<std::string>());
  // Rank 0's compile pool sends the binary when it compiled the configuration; otherwise this rank compiles it.
  const CompileOutput compiled = job.contains("compiled") ? detail::compile_output_from_message(job.at("compiled"))
                                                          : compile_config_cached(cache, task.spec, config, arch, &task.shape);
  const Result result = kind == "retime" ? evaluator.retime(config, compiled, job.at("repeats").get<int>())
                                         : evaluator.evaluate(config, compiled, job.at("best_ms").get<double>());
  return {{"result", detail::to_message(result)}};
}

}  // namespace

int serve_rank(Transport& transport, const LocalGpu& gpu, const TuneOptions& options) {
  Message hello = to_message(gpu);
  hello["host"] = transport.host();  // rank 0 sends a rank on its own host nothing to compile: they share the CPUs
  transport.send(0, Tag::Hello, hello);
  std::unique_ptr<CubinCache> cache;
  if (options.use_cache) {
    cache = std::make_unique<CubinCache>(options.cache_dir.empty() ? CubinCache::default_directory()
                                                                   : std::filesystem::path(options.cache_dir));
  }
  detail::WorkerSettings settings;
  settings.executable = detail::find_worker_executable();
  settings.device = gpu.ordinal;
  settings.measure = options.measure;
  settings.cache_dir = cache ? cache->directory().string() : std::string();
  settings.timeout_floor_s = options.timeout_floor_s;
  std::unique_ptr<detail::Evaluator> evaluator;
  std::string broken;  // once set, every job fails with it: rank 0 then stops giving this rank jobs
  if (settings.executable.empty()) broken = "cutune-worker was not found beside this program on " + transport.host();

  std::map<std::size_t, Task> tasks;
  std::size_t prepared = 0;
  while (true) {
    const Envelope message = transport.receive();
    if (message.tag == Tag::Stop) break;
    if (message.tag == Tag::Prepare) {
      const Message& m = message.body;
      tasks.erase(prepared);  // one shape at a time: the previous one is done
      tasks[m.at("task").get<std::size_t>()] =
          Task{KernelSpec::from_json(m.at("spec").get<std::string>(), m.at("source").get<std::string>(),
                                     m.at("source_name").get<std::string>(), m.value("folder", std::string())),
               Shape{m.at("shape").get<std::vector<std::int64_t>>()}, flush_of(m)};
      continue;
    }
    if (message.tag != Tag::Job) continue;
    Message reply{{"seq", message.body.value("seq", std::uint64_t{0})}};
    try {
      if (!broken.empty()) throw Error(broken);
      const std::size_t id = message.body.at("task").get<std::size_t>();
      const Task& task = tasks.at(id);
      if (!evaluator) {
        evaluator = detail::make_worker_evaluator(settings);
        evaluator->start();
      }
      if (prepared != id) {
        const auto start = Clock::now();
        prepared = 0;
        evaluator->prepare(task.spec, task.shape, task.flush);
        prepared = id;
        reply["prepare_s"] = seconds_since(start);
      }
      const auto start = Clock::now();
      reply.update(run_job(*evaluator, cache.get(), gpu.identity.arch(), task, message.body));
      reply["measure_s"] = seconds_since(start);
    } catch (const Interrupted&) {
      reply["interrupted"] = true;
    } catch (const std::exception& e) {
      broken = e.what();
      reply["failure"] = broken;
      detail::logger()->error("rank {} on {}: {}", transport.rank(), transport.host(), broken);
    }
    transport.send(0, Tag::Result, reply);
  }
  return 0;
}

}  // namespace cutune::cluster
