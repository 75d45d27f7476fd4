// update_comms: a tep's pid → comm table brought up to date from the text
// of tracefs' saved_cmdlines ("PID COMM" lines). The kernel saves a traced
// task's comm at its context switches, so a task that started, exec'd or
// took over a reused pid after the formats were loaded is named there:
// libtraceevent's tep_parse_saved_cmdlines() keeps a pid's first name, so
// a changed one is put in with tep_override_comm(). Lines that are not
// "PID COMM" are skipped.
#pragma once

#include <cstddef>
#include <string_view>

struct tep_handle;

namespace allocwatch {

// Returns how many pids got a new or changed name.
std::size_t update_comms(tep_handle* tep, std::string_view saved_cmdlines);

} // namespace allocwatch
