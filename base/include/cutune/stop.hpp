// A process-wide request to stop tuning, set from a signal handler and seen by the tuning loop and the worker client.
#pragma once

#include <string>

namespace cutune {

/// Asks every running tuning job to stop after (or, in a worker, during) its current configuration; safe to call
/// from a signal handler. Tuner::tune() then throws Interrupted.
void request_stop();
bool stop_requested();
/// Forgets an earlier request_stop(), for a program that goes on tuning after an interruption.
void reset_stop();

/// Installs a SIGTERM handler that writes `message` (up to 1023 bytes) to stderr at once, then calls request_stop().
/// Launchers (mpirun, Slurm, kill) send SIGTERM and SIGKILL soon after (mpirun: a second later): what was stored is
/// said before the orderly stop, which waits for a compile or a measurement in flight, may be cut short.
void announce_on_terminate(const std::string& message);
/// Whether that handler has written its message (a later report of the interruption would say it twice).
bool termination_announced();

}  // namespace cutune
