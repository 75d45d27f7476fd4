// Event formats as libtraceevent can parse them.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

struct tep_handle;

namespace allocwatch {

class SymbolAddresses;

// `format` (an events/SYSTEM/NAME/format file) with what libtraceevent 1.7
// cannot read put as it can, meaning the same: 7.x's vmscan events print
// the task's pid as `REC->ent.pid` (the common header's member, in
// include/trace/events/vmscan.h), which is the field `common_pid`.
std::string parsable_format(std::string_view format);

// The "ID: N" line of a format file: N, or -1 when it has none.
int format_id(std::string_view format);

// Formats read but given to libtraceevent only when a record of their
// event is first decoded: a run parses the formats of the events it sees,
// not of every event it enables (the format of an event with gfp_flags,
// whose __print_flags lists some forty flags, costs tep_parse_event half a
// millisecond on a 2-core virtual machine).
class PendingFormats {
public:
  // From now on, the symbols a parsed format's print arguments name are
  // looked up in `symbols` and registered in the tep
  // (register_print_names(), ring/print_names.h); nullptr: none. It must
  // outlive the parses.
  void set_symbols(SymbolAddresses* symbols) { symbols_ = symbols; }
  // `format` (parsable_format's) of an event of `system`: false, and not
  // kept, when it names no ID.
  bool add(std::string system, std::string format);
  // Parses the format of event `id` into `tep` and forgets it: true if one
  // was pending and parsed. The symbols its print format names are
  // registered then (set_symbols()).
  bool parse(tep_handle* tep, int id);
  std::size_t size() const { return pending_.size(); }

private:
  struct Format {
    std::string system;
    std::string text;
  };
  std::unordered_map<int, Format> pending_;
  SymbolAddresses* symbols_ = nullptr;
};

} // namespace allocwatch
