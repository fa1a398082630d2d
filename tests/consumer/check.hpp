// What both consumers check through the installed cutune: a database opened, one result stored, and the best
// configuration predicted for a nearby shape from what was measured (no GPU needed).
#pragma once

#include <cutune/database.hpp>
#include <cutune/runtime.hpp>
#include <cutune/templates.hpp>

#include <iostream>

inline int run_consumer(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer DATABASE\n";
    return 2;
  }
  try {
    const cutune::KernelSpec spec = cutune::load_kernel("transpose");
    cutune::DeviceIdentity gpu;
    gpu.name = "Consumer GPU";
    gpu.cc_major = 9;
    gpu.sm_count = 132;
    cutune::Database db(argv[1]);
    cutune::Result result;
    result.config = "TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    result.median_ms = 0.25;
    db.record(db.begin_run(gpu, {spec.name, spec.hash}, "consumer"), "1024x1024", result);
    const cutune::BestConfig chosen = cutune::choose_config(&db, spec, gpu, spec.parse_shape("2048x2048"));
    std::cout << "rule: " << cutune::to_string(chosen.match) << "\nconfig: " << chosen.result.config << "\n";
    return chosen.match == cutune::Match::Predicted && chosen.result.config == result.config ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
