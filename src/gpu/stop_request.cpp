#include "gpu/stop_request.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace peerbench::gpu {
namespace {

std::atomic<int> g_signals{0};  // a signal handler can only reach process-wide state
std::atomic<int> g_first{0};    // the first signal, for the file's stopped_by

// A second SIGINT (Ctrl-C again) leaves at once. A repeated SIGTERM does not: a batch system at
// its time limit signals the tasks and the launcher forwards its own, so one stop can arrive
// twice within milliseconds, and leaving then would skip the final write.
extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_first.compare_exchange_strong(none, sig);  // before the flag: whoever sees it sees the name
  if (g_signals.fetch_add(1) > 0 && sig == SIGINT) _exit(128 + sig);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() {
  return g_signals.load() > 0;
}

const char* stop_signal_name() {
  switch (g_first.load()) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "";
  }
}

}  // namespace peerbench::gpu
