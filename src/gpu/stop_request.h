#pragma once
// SIGINT and SIGTERM ask the job to stop: the step in flight finishes, the file is written with
// what was done (a burn-in's cycles too), and every rank leaves together. The only process-wide
// state here is what a handler may touch: lock-free atomics it can do nothing but set.
namespace peerbench::gpu {

// Installs the handlers (idempotent). A second SIGINT while stopping ends the process at once (a
// repeated SIGTERM does not: batch systems and launchers send it twice for one stop).
void install_stop_handlers();
// This process was asked to stop.
bool stop_requested();
// The first stop signal's name ("SIGINT", "SIGTERM"), or "" when none came.
const char* stop_signal_name();

}  // namespace peerbench::gpu
