// Compiler processes: NVRTC compiles of a CompilePool's threads, each in a cutune-worker of its own.
//
// Why: threads of one process that compile at once wait for each other inside NVRTC (on an H200 machine's 16 cores,
// 16 threads made each BF16 GEMM compile 2.1 times as long as one alone; 16 processes, 1.1-1.4 times; bench/
// compile_bench). A process also takes a crash of NVRTC on a strange source with it, which then fails one compile;
// a process killed from outside (SIGKILL, SIGTERM) fails nothing: the compile runs again in another one, and is marked
// interrupted (CompileOutput::interrupted) if that one is killed too.
#pragma once

#include <string>

#include "compile/nvrtc.hpp"
#include "worker_protocol.hpp"

namespace cutune::detail {

/// Runners for a CompilePool (CompilePool(threads, make_compiler_processes(worker))): the first compile of a thread
/// starts a `worker --compiler` process for it, which the thread gives back when it ends, for the next pool's
/// threads. The processes end with the last copy of the factory and the runners it made.
NvrtcRunnerFactory make_compiler_processes(const std::string& worker_executable);
/// make_compiler_processes() with the worker find_worker_executable() finds; no runners (compiles in this process)
/// when there is none.
NvrtcRunnerFactory compiler_processes_if_found();

/// The worker's side of `--compiler`: answers "nvrtc" requests on `in` until it closes. Returns the exit code.
int compiler_main(int in, int out);
/// compiler_main()'s answer to one request: the compile's output, or {"error": why}.
Message answer_compile_request(const Message& request);

}  // namespace cutune::detail
