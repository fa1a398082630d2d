// A process-wide request to stop tuning, set from a signal handler and seen by the tuning loop and the worker client.
#pragma once

namespace cutune {

/// Asks every running tuning job to stop after (or, in a worker, during) its current configuration; safe to call
/// from a signal handler. Tuner::tune() then throws Interrupted.
void request_stop();
bool stop_requested();
/// Forgets an earlier request_stop(), for a program that goes on tuning after an interruption.
void reset_stop();

}  // namespace cutune
