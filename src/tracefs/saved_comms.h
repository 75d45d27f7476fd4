// update_comms: the tasks that tracefs' saved_cmdlines names ("PID COMM"
// lines), each handed to `name`, which says whether that changed the name
// it had. The kernel saves a traced task's comm at its context switches, so
// a task that started, exec'd or took over a reused pid after the formats
// were loaded is named there. Lines that are not "PID COMM" are skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocwatch {

// Returns how many pids got a new or changed name. A line equal to the line
// at its place in `previous` (saved_cmdlines as read before, whose lines
// were handed on then) is skipped: the kernel rewrites its table's entries
// in place.
std::size_t update_comms(std::string_view saved_cmdlines,
                         const std::function<bool(std::int32_t, std::string_view)>& name,
                         std::string_view previous = {});

// saved_cmdlines as a run that read the ring buffer names its tasks:
// `names` ("PID COMM" each, in their order; a comm with a newline is left
// out) then the lines of
// `saved_cmdlines` whose pid `names` does not hold, as they are. What a
// reader of a trace.dat with it (trace-cmd, allocwatch -i) names a task is
// then what the run printed, where the kernel's table may be stale (a
// comm saved before an exec) or have lost the task.
std::string with_run_names(std::string_view saved_cmdlines,
                           const std::vector<std::pair<std::int32_t, std::string>>& names);

// The comm the kernel's tracing saves (task->comm) in what /proc/PID/comm
// says, or empty when it says something else. /proc decorates a workqueue
// worker's name with its work (fs/proc/array.c, proc_task_name():
// "kworker/u4:2+flush-254:0", '+' or '-' after the comm), and may give a
// kernel thread's full name, longer than any comm.
std::string_view task_comm_of(std::string_view proc_comm);

} // namespace allocwatch
