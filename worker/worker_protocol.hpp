// The messages between the tuner and its worker process: length-prefixed CBOR frames over a Unix socket pair.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "cutune/compiler.hpp"
#include "cutune/measure.hpp"
#include "cutune/result.hpp"

namespace cutune::detail {

using Message = nlohmann::json;

/// Writes one frame; false when the other end is gone.
bool write_message(int fd, const Message& message);

enum class ReadOutcome { Message, Closed, TimedOut, Stopped };

/// Reads one frame, waiting at most `timeout_s` (negative: forever) and giving up early when `stop` (if given)
/// turns true; a malformed frame counts as Closed.
ReadOutcome read_message(int fd, double timeout_s, const std::function<bool()>& stop, Message& out);

Message to_message(const Result& result);
Result result_from_message(const Message& m);
Message to_message(const CompileOutput& compiled);
CompileOutput compile_output_from_message(const Message& m);
/// The measurement's settings without the L2 convention, which travels resolved beside them (the set-up message's
/// "flush": a worker never decides it).
Message to_message(const MeasureOptions& options);
MeasureOptions measure_options_from_message(const Message& m);
/// "read", "write" or "none"; throws InputError for another text.
L2Flush l2_flush_from_message(const Message& m);

/// The worker's side: serves requests on `in`, answers on `out`, until `in` closes. Returns the exit code.
int worker_main(int in, int out);

}  // namespace cutune::detail
