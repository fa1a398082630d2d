// A small database for the report tests: two GPUs, two shapes, runs with resources and failures whose messages
// try to break out of the page (script end tags, markup), and what the report must draw from it.
#pragma once

#include <string>
#include <vector>

#include "db_test_support.hpp"

namespace cutune::testing {

const KernelIdentity kReportGemm{"gemm", "feedfacefeedface"};
const KernelIdentity kReportCopy{"copy", "0123012301230123"};
/// A message that would run a script if the page pasted database text into its HTML.
const std::string kHostileMessage =
    "error: </script><script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\"> & more";

struct ReportFixture {
  std::size_t gemm_groups = 3;       ///< H100 at two shapes, A100 at one
  std::size_t h100_small_runs = 2;   ///< runs with a correct result in gemm 1024x1024 on the H100
  std::size_t h100_small_ok = 0;     ///< its Ok configurations, every one with resources
  std::size_t h100_small_failed_statuses = 2;
  std::size_t gemm_parameters = 3;   ///< BM, BN, TM
  std::size_t gemm_values = 7;       ///< BM 32 64 128, BN 32 64, TM 4 8
  PhaseTimes first_times = synthetic_run_times(10.0);  ///< where the first H100 run's time went
  PhaseTimes second_times = synthetic_run_times(6.0);  ///< and the second's; the other runs kept none
};

inline Result with_resources(Result r, int threads, std::int64_t blocks, int per_sm) {
  r.threads_per_block = threads;
  r.blocks = blocks;
  r.blocks_per_sm = per_sm;
  r.static_smem_bytes = 4096 * per_sm;
  r.peak = 60000.0;
  r.metric = 2e3 / r.median_ms;
  return r;
}

inline Result without_resources(Result r) {
  r.spill_bytes = r.static_smem_bytes = r.dynamic_smem_bytes = r.threads_per_block = r.blocks_per_sm = 0;
  r.blocks = 0;
  r.peak = 0.0;
  return r;
}

/// Fills `path` and returns what the report of it must show.
inline ReportFixture write_report_database(const fs::path& path) {
  ReportFixture f;
  Database db(path);
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132, "GPU-h100");
  const DeviceIdentity a100 = synthetic_device("NVIDIA A100-SXM4-80GB", 8, 0, 108, "GPU-a100");
  const std::vector<int> bm{32, 64, 128}, bn{32, 64}, tm{4, 8};
  // Two runs on the H100 at 1024x1024: the first measures half of the space, the second the rest and two failures.
  const auto first = db.begin_run(h100, kReportGemm, "tune --kernel gemm --shapes 1024x1024 --budget 6");
  const auto second = db.begin_run(h100, kReportGemm, "tune --kernel gemm --shapes 1024x1024 --strategy random");
  int n = 0;
  for (int m : bm)
    for (int b : bn)
      for (int t : tm) {
        const std::string config = "BM=" + std::to_string(m) + ",BN=" + std::to_string(b) + ",TM=" + std::to_string(t);
        if (m == 128 && b == 64) {
          db.record(second, "1024x1024",
                    failed_result(config, t == 4 ? Status::CompileError : Status::LaunchError,
                                  t == 4 ? kHostileMessage : "too many resources requested for launch"));
          continue;
        }
        const double time = 0.05 + 0.01 * ((n * 7) % 11) + 0.002 * t;
        const int threads = m * b / (t * 4);
        const std::int64_t blocks = (1024 / m) * (1024 / b);
        db.record(n % 2 == 0 ? first : second, "1024x1024",
                  with_resources(ok_result(config, time), threads, blocks, 1 + n % 4));
        ++f.h100_small_ok;
        ++n;
      }
  db.finish_run(first, f.first_times);
  db.finish_run(second, f.second_times);
  const auto large = db.begin_run(h100, kReportGemm, "tune --kernel gemm --shapes 4096x4096");
  for (int m : bm) {
    db.record(large, "4096x4096", with_resources(ok_result("BM=" + std::to_string(m) + ",BN=64,TM=8", 0.9 / m * 64),
                                                 m * 2, (4096 / m) * 64, 2));
  }
  // The A100 has no resource figures (an import from another tool would look like this).
  const auto other = db.begin_run(a100, kReportGemm, "imported");
  db.record(other, "1024x1024", without_resources(ok_result("BM=64,BN=32,TM=4", 0.2)));
  db.record(other, "1024x1024", without_resources(ok_result("BM=32,BN=32,TM=4", 0.3)));
  // Another kernel, measured once: its own section, nothing across devices.
  db.record(db.begin_run(h100, kReportCopy, "tune --kernel copy"), "65536", ok_result("VEC=4", 0.01));
  return f;
}

}  // namespace cutune::testing
