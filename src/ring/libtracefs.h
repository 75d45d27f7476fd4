// <tracefs.h> for C++, for ring/ and tracefs/: the header has no extern "C"
// of its own, and its inline tracefs_hist_start() passes a plain 0 where C++
// wants an enum tracefs_hist_command. An int overload, seen first, takes
// that call.
#pragma once

struct tracefs_instance;
struct tracefs_hist;
int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command);

extern "C" {
#include <tracefs.h>
}

inline int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command) {
  return tracefs_hist_command(instance, hist, static_cast<enum tracefs_hist_command>(command));
}
