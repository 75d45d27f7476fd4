// Kernel symbols that print formats name. libtraceevent evaluates a name
// among an event's print arguments (an atom that is not a number) as the
// address of the kernel symbol so named, found in the tep's own function
// list, or 0 when the list has none, and keeps that value for good
// (test_for_symbol() in libtraceevent's event-parse.c). 6.1+'s
// mm_vmscan_write_folio prints its page so (include/trace/events/vmscan.h,
// x86's pfn_to_page): "(((struct page *)vmemmap_base) + (REC->pfn))".
//
// A tep read from a trace.dat has the file's kallsyms in that list, so
// trace-cmd report prints the symbol's address plus the pfn. A live tep
// names functions through a resolver instead (tracefs/local_events.h),
// which that lookup never asks: register_print_names() puts the names an
// event's print format uses in the list, before its first record prints.
// With a resolver set, the tep finds functions only through it: the list
// serves these names alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct tep_event;
struct tep_handle;

namespace allocwatch {

// Kernel symbols' addresses by name.
class SymbolAddresses {
public:
  virtual ~SymbolAddresses() = default;
  // Those of `names` that name a kernel symbol, each with its address, as
  // tep_parse_kallsyms() lists them: absolute symbols (types A, a) and "$"
  // names left out; of a name several symbols share, the lowest address
  // (the first in the tep's table, which is sorted by address).
  virtual std::vector<std::pair<std::string, std::uint64_t>>
  addresses(const std::vector<std::string>& names) = 0;
};

// The names among `event`'s print arguments that libtraceevent looks up as
// symbols, once each: the atoms that are C identifiers where a number is
// evaluated (an operator's operand, a cast's item, the value of
// __print_flags and its kin). An argument of the format itself, or a
// branch of "?:" in its place, is left out: an atom there may be a string
// literal ("none", "RECLAIM_WB_NONE"), and looking up each of those would
// read /proc/kallsyms through for nothing. (A name printed there with a
// number's conversion is so left as libtraceevent reads it without a
// table: 0.)
std::vector<std::string> print_names(const tep_event& event);

// Registers in `tep` (tep_register_function) each symbol that `event`'s
// print arguments name, as `symbols` finds it; returns how many.
std::size_t register_print_names(tep_handle* tep, const tep_event& event, SymbolAddresses& symbols);

} // namespace allocwatch
