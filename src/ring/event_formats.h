// Event formats as libtraceevent can parse them.
#pragma once

#include <string>
#include <string_view>

namespace allocwatch {

// `format` (an events/SYSTEM/NAME/format file) with what libtraceevent 1.7
// cannot read put as it can, meaning the same: 7.x's vmscan events print
// the task's pid as `REC->ent.pid` (the common header's member, in
// include/trace/events/vmscan.h), which is the field `common_pid`.
std::string parsable_format(std::string_view format);

} // namespace allocwatch
